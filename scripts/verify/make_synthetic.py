#!/usr/bin/env python3
"""Writes a small synthetic results file in the LSR layout (all 63 columns of the 2026-06..08 files), for
exercising scripts/verify/lsr_features.py without the real data: the failure-mode test runs the check on
it (test/integration/independent-check.test.ts). Deterministic: the same file every time.

    python3 scripts/verify/make_synthetic.py OUT_DIR      # writes OUT_DIR/Results_209901.csv
"""
from __future__ import annotations

import csv
import os
import random
import sys

COLUMNS = (
    'RaceId,RaceName,CourseId,CourseName,Off,RaceType,Class,Pattern,RatingBand,AgeBand,SexRestriction,Distance,'
    'DistanceInFurlongs,DistanceInMeters,DistanceInYards,Going,Surface,HorseId,HorseName,JockeyId,JockeyName,'
    'TrainerId,TrainerName,Age,HeadGear,RaceCardNumber,StallNumber,Weight,WeightInPounds,FractionalOdds,'
    'DecimalOdds,OfficialRating,RacingPostRating,TopSpeedRating,ResultStatus,FinishingPosition,BeatenDistance,'
    'OverallBeatenDistance,RaceTime,RaceTimeInSeconds,ForecastFractionalOdds,ForecastDecimalOdds,DaysSinceLastRun,'
    'FormFigures,PrizeMoney,PrizeMoneyValue,CardOfficialRating,CardRacingPostRating,CardTopSpeedRating,OwnerId,'
    'OwnerName,SireName,SireCountry,DamName,HeadgearFirstTime,GeldingFirstTime,WindSurgery,TrainerRtf,'
    'JockeyAllowanceLbs,JockeyFirstTime,NewTrainerRacesCount,CountryOfOrigin,Spotlight'
).split(',')
COURSES = [('9101', 'Synthbury', 'Turf'), ('9102', 'Synthwell (AW)', 'AllWeather'), ('9103', 'Fakehurst', 'Turf')]
GOINGS = {'Turf': ['Good', 'Good To Soft', 'Soft', 'Heavy', 'Good To Firm', 'Yielding', ''],
          'AllWeather': ['Standard', 'Standard To Slow', 'Slow']}
TYPES = [('Other', 'Handicap'), ('Other', 'Maiden Stakes'), ('Hurdle', 'Novices\' Hurdle'),
         ('SteepleChase', 'Handicap Chase'), ('Flat', 'Open NH Flat Race')]
PATTERNS = ['', '', '', '', 'Listed', '(Group 3)', '(Grade 2)', '(Grade B)', ' Group 1)']
HEADGEAR = ['', '', '', '', 't', 'p', 'b1', 'tp', 'h', 'e/s', 'v1', 'hte']
STATUSES = ['PulledUp', 'Fell', 'UnseatedRider', 'Disqualified']
ODDS = [('1/2', '1.5'), ('8/15', '1.5333333333333332'), ('Evs', '2'), ('6/4', '2.5'), ('15/8', '2.875'),
        ('3/1', '4'), ('100/30', '4.333333333333334'), ('5/1', '6'), ('8/1', '9'), ('12/1', '13'), ('33/1', '34')]


def main(out_dir: str) -> None:
    rnd = random.Random(20991)
    horses = [(str(70000 + i), rnd.randint(2, 9)) for i in range(70)]
    jockeys = [str(2900 + i) for i in range(10)]
    trainers = [str(3900 + i) for i in range(8)]
    owners = ['', '0'] + [str(160000 + i) for i in range(6)]
    sires = [('', '')] + [(f'Sire {c}', rnd.choice(['IRE', 'GB', 'FR'])) for c in 'ABCDE']
    dams = [''] + [f'Dam &amp; {c}' for c in 'PQRSTUVWXY']
    pedigree = {h: (rnd.choice(sires), rnd.choice(dams)) for h, _ in horses}
    rows = []
    race_id = 990000
    for month, day in [(m, d) for m in (1, 2, 3) for d in range(1, 29, 2)]:
        for course_id, course_name, surface in COURSES:
            if rnd.random() < 0.45:
                continue
            for slot in range(rnd.randint(1, 3)):
                race_id += 1
                race_type, title = rnd.choice(TYPES)
                if surface == 'AllWeather':
                    race_type, title = 'Other', rnd.choice(['Handicap', 'Classified Stakes', 'Fillies\' Handicap'])
                yards = rnd.choice([1100, 1320, 1540, 1760, 2200, 2640, 3080, 3520, 4400])
                off = f'{month:02d}/{day:02d}/2099 {13 + slot}:{rnd.choice(["00", "30", "45"])}:00'
                cls = rnd.choice(['', 'Class 2', 'Class 4', 'Class 5', 'Class 6'])
                field = rnd.sample(horses, rnd.randint(1 if rnd.random() < 0.05 else 4, 12))
                stalls = race_type == 'Other' and rnd.random() < 0.9
                draws = rnd.sample(range(1, len(field) + 3), len(field)) if stalls else [''] * len(field)
                if stalls and len(field) > 3 and rnd.random() < 0.3:
                    draws[1] = draws[0]  # equal draws
                finishers = list(range(1, len(field) + 1))
                if len(field) > 2 and rnd.random() < 0.15:
                    finishers[1] = 1  # dead heat for first
                fav = rnd.randrange(len(field))
                for i, (horse, age) in enumerate(field):
                    nonfinisher = race_type != 'Other' and rnd.random() < 0.12
                    pos = 0 if nonfinisher else finishers[i]
                    odds = rnd.choice(ODDS)
                    frac = odds[0] + ('F' if i == fav else 'J' if rnd.random() < 0.04 else '')
                    sire, dam = pedigree[horse]
                    obd = '' if pos == 0 else '0' if pos == 1 else str(round(rnd.uniform(0.05, 40) * 4) / 4)
                    row = dict.fromkeys(COLUMNS, '')
                    row.update({
                        'RaceId': race_id, 'RaceName': f'{course_name} {title} {race_id}', 'CourseId': course_id,
                        'CourseName': course_name, 'Off': off, 'RaceType': race_type, 'Class': cls,
                        'Pattern': rnd.choice(PATTERNS), 'AgeBand': '3yo+',
                        'SexRestriction': rnd.choice(['None', 'None', 'Fillies', '']),
                        'DistanceInYards': yards, 'Going': rnd.choice(GOINGS[surface]), 'Surface': surface,
                        'HorseId': horse, 'HorseName': f'Horse {horse} right', 'JockeyId': rnd.choice(jockeys),
                        'JockeyName': 'J right', 'TrainerId': rnd.choice(trainers), 'TrainerName': 'T right',
                        'Age': age if rnd.random() > 0.03 else '', 'HeadGear': rnd.choice(HEADGEAR),
                        'RaceCardNumber': i + 1, 'StallNumber': draws[i], 'WeightInPounds': rnd.randint(112, 168),
                        'FractionalOdds': frac, 'DecimalOdds': odds[1] if rnd.random() > 0.03 else '',
                        'OfficialRating': rnd.choice(['', rnd.randint(45, 130)]),
                        'ResultStatus': rnd.choice(STATUSES) if pos == 0 else 'CompletedRace',
                        'FinishingPosition': pos, 'OverallBeatenDistance': obd,
                        'RaceTimeInSeconds': '100.5' if pos == 1 else '', 'OwnerId': rnd.choice(owners),
                        'OwnerName': 'O right', 'SireName': sire[0], 'SireCountry': sire[1], 'DamName': dam,
                        'GeldingFirstTime': rnd.choice(['False', 'True', '']),
                        'JockeyAllowanceLbs': rnd.choice(['', '', '', '3', '5', '7']),
                    })
                    rows.append(row)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, 'Results_209901.csv')
    with open(path, 'w', newline='', encoding='utf-8') as fh:
        w = csv.DictWriter(fh, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(f'wrote {len(rows)} rows to {path}')


if __name__ == '__main__':
    main(sys.argv[1])
