#!/usr/bin/env python3
"""Independent re-implementation of the analytics row (shared/spec/features.md) from the LSR results CSVs.

Standard library only. Reads every Results_*.csv under the data folder, applies the importer's rules
(docs/importer.md), computes every confirmed field for every runner with exact rational arithmetic
(fractions.Fraction, rounded half away from zero), and compares with the service's export
(`racing export analytics` NDJSON).

    python3 scripts/verify/lsr_features.py \
        --data ../shared/data/lsr-racingdata --export /tmp/verify-export.ndjson [--examples 8] \
        [--explain RACE_SOURCE_KEY:HORSE_ID] [--draw-thirds any|all] [--snapshot-in-force at|after]

Nothing here imports or reads the service's feature code; ids are recomputed from domain/ids.ts's
documented algorithm (SHA-256 of the source key, first 80 bits, Crockford base32 lower case).
"""
from __future__ import annotations

import argparse
import bisect
import collections
import csv
import datetime as dt
import glob
import hashlib
import html
import json
import os
import re
import sys
import time
from fractions import Fraction as F

# ---------------------------------------------------------------------------------------------- ids
ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
PREFIX = {'race': 'rac_', 'horse': 'hrs_', 'jockey': 'jky_', 'trainer': 'trn_', 'sire': 'sir_', 'course': 'crs_'}


def make_id(kind: str, key: str) -> str:
    n = int.from_bytes(hashlib.sha256(key.encode('utf-8')).digest()[:10], 'big')
    return PREFIX[kind] + ''.join(ALPHABET[(n >> (5 * i)) & 31] for i in range(15, -1, -1))


# --------------------------------------------------------------------------------------------- time
HOUR = 3_600_000
DAY = 86_400_000
RESULT_DELAY = 15 * 60_000
EPOCH = dt.datetime(1970, 1, 1)


def _ms(d: dt.datetime) -> int:
    return int((d - EPOCH).total_seconds()) * 1000


def _last_sunday(year: int, month: int) -> dt.date:
    nxt = dt.date(year + (month == 12), month % 12 + 1, 1)
    d = nxt - dt.timedelta(days=1)
    return d - dt.timedelta(days=(d.weekday() - 6) % 7)


_bst_cache: dict[int, tuple[int, int]] = {}


def bst_window(year: int) -> tuple[int, int]:
    if year not in _bst_cache:
        s = _last_sunday(year, 3)
        e = _last_sunday(year, 10)
        _bst_cache[year] = (_ms(dt.datetime(s.year, s.month, s.day, 1)), _ms(dt.datetime(e.year, e.month, e.day, 1)))
    return _bst_cache[year]


def uk_local_to_utc_ms(off: str) -> int:
    """`MM/dd/yyyy HH:mm:ss` UK clock time -> UTC ms. BST (UTC+1) from 01:00 UTC last Sunday of March to
    01:00 UTC last Sunday of October. Skipped spring hour read as GMT; repeated autumn hour = first (BST)."""
    local = dt.datetime.strptime(off, '%m/%d/%Y %H:%M:%S')
    as_gmt = _ms(local)
    as_bst = as_gmt - HOUR
    s, e = bst_window(local.year)
    return as_bst if s <= as_bst < e else as_gmt


def iso(ms: int) -> str:
    return (EPOCH + dt.timedelta(milliseconds=ms)).strftime('%Y-%m-%dT%H:%M:%S.') + f'{ms % 1000:03d}Z'


def utc_date(ms: int) -> dt.date:
    return (EPOCH + dt.timedelta(milliseconds=ms)).date()


def month_start_ms(ms: int) -> int:
    d = utc_date(ms)
    return _ms(dt.datetime(d.year, d.month, 1))


# ----------------------------------------------------------------------------------------- rounding
def round_half_away(x: F, places: int) -> F:
    q = x * (10 ** places)
    n = (abs(q.numerator) * 2 + q.denominator) // (2 * q.denominator)  # floor(|q| + 1/2)
    return F(n if q >= 0 else -n, 10 ** places)


def is_half(x: F, places: int) -> bool:
    """True when x sits exactly on a rounding half at `places` (where float implementations may differ)."""
    q = x * (10 ** places) * 2
    return q.denominator == 1 and q.numerator % 2 == 1


def rate(num: int, den: int) -> F:
    return F(num, den) if den else F(0)


def num(x: F):
    """Fraction -> JSON-like number (int when integral, else float)."""
    return int(x) if x.denominator == 1 else float(x)


# ------------------------------------------------------------------------------------------ mapping
NH_FLAT_RE = re.compile(r'\b(INH Flat|National Hunt Flat|Bumper)\b', re.I)
DISCIPLINES = ['flat', 'hurdle', 'chase', 'nh-flat']
SURFACES = ['turf', 'aw']
BUCKETS = ['sprint', 'mile', 'middle', 'staying']
GOINGS = ['Hard', 'Firm', 'Good To Firm', 'Good', 'Good To Yielding', 'Good To Soft', 'Yielding',
          'Yielding To Soft', 'Soft', 'Soft To Heavy', 'Heavy', 'Fast', 'Standard To Fast', 'Standard',
          'Standard To Slow', 'Slow']
GOING_CODE = {g.lower(): i + 1 for i, g in enumerate(GOINGS)}
CLASS_PAR = {1: 110, 2: 95, 3: 85, 4: 75, 5: 65, 6: 55, 7: 45}


def discipline(race_type: str, race_name: str) -> str:
    if race_type == 'Other':
        return 'flat'
    if race_type == 'Hurdle':
        return 'nh-flat' if NH_FLAT_RE.search(race_name) else 'hurdle'
    if race_type == 'SteepleChase':
        return 'chase'
    if race_type == 'Flat':
        return 'nh-flat'
    raise ValueError(race_type)


def surface(s: str, course_name: str) -> str:
    if s == 'Turf':
        return 'turf'
    if s in ('AllWeather', 'Dirt'):
        return 'aw'
    if s == 'Unknown':
        return 'aw' if '(AW)' in course_name else 'turf'
    raise ValueError(s)


def bucket(yards: int) -> str:
    return 'sprint' if yards < 1540 else 'mile' if yards < 2200 else 'middle' if yards < 2860 else 'staying'


# --------------------------------------------------------------------------------------------- load
class Race:
    __slots__ = ('idx', 'course', 'off_raw', 'off', 'pub', 'name', 'disc', 'surf', 'yards', 'cls', 'going',
                 'runners', 'standard', 'key')


class Run:
    __slots__ = ('race', 'horse', 'jockey', 'trainer', 'sire', 'draw', 'weight', 'rating', 'pos', 'status',
                 'obd', 'fig', 'fig_half', 'line')


def load(data_dir: str):
    paths = sorted(glob.glob(os.path.join(data_dir, '*', 'Results_*.csv')), key=os.path.basename)
    races: dict[tuple[str, str], Race] = {}
    seen = set()
    rows = dups = 0
    for path in paths:
        with open(path, encoding='utf-8-sig', newline='') as fh:
            rd = csv.DictReader(fh)
            for lineno, row in enumerate(rd, start=2):
                rows += 1
                key = (row['CourseId'], row['Off'], row['HorseId'])
                if key in seen:
                    dups += 1
                    continue
                seen.add(key)
                rk = (row['CourseId'], row['Off'])
                race = races.get(rk)
                if race is None:
                    race = Race()
                    race.course = row['CourseId']
                    race.off_raw = row['Off']
                    race.off = uk_local_to_utc_ms(row['Off'])
                    race.pub = race.off + RESULT_DELAY
                    race.name = html.unescape(row['RaceName'])
                    race.disc = discipline(row['RaceType'], race.name)
                    race.surf = surface(row['Surface'], html.unescape(row['CourseName']))
                    race.yards = int(row['DistanceInYards'])
                    c = row['Class'].strip()
                    race.cls = int(c.split()[1]) if c else 0
                    race.going = row['Going'].strip()
                    race.runners = []
                    races[rk] = race
                r = Run()
                r.race = race
                r.horse = row['HorseId']
                r.jockey = row['JockeyId']
                r.trainer = row['TrainerId']
                sn = row.get('SireName') or ''
                r.sire = f"{sn}:{row.get('SireCountry') or ''}" if sn else None
                r.draw = int(row['StallNumber']) if row['StallNumber'].strip() else 0
                r.weight = int(row['WeightInPounds'])
                r.rating = int(row['OfficialRating']) if row['OfficialRating'].strip() else 0
                r.pos = int(row['FinishingPosition'])
                r.status = row['ResultStatus']
                r.obd = F(row['OverallBeatenDistance']) if r.pos >= 2 else F(0)
                r.line = f'{os.path.basename(path)}:{lineno}'
                race.runners.append(r)
    # feed-independent order: by off, then source key
    ordered = sorted(races.values(), key=lambda x: (x.off, x.course, x.off_raw))
    for i, race in enumerate(ordered):
        race.idx = i
        race.key = (race.course, race.disc, bucket(race.yards), race.surf)
        rated = [r.rating for r in race.runners if r.rating > 0]
        race.standard = F(sum(rated), len(rated)) if rated else F(CLASS_PAR.get(race.cls, 60))
        lpl = min(max(F(3300, race.yards), F(1, 2)), F(3))
        for r in race.runners:
            if r.pos >= 1:
                raw = race.standard - min(r.obd, F(30)) * lpl + (r.weight - 140) * F(1, 2)
                r.fig = round_half_away(raw, 1)
                r.fig_half = is_half(raw, 1)
            else:
                r.fig = None
                r.fig_half = False
    return ordered, rows, dups, paths


# ------------------------------------------------------------------------------------------ indexes
class Series:
    """Runs of one entity sorted by (off, race idx): off list for bisect plus prefix sums."""
    __slots__ = ('offs', 'runs', 'wins', 'places')

    def __init__(self, runs):
        runs.sort(key=lambda r: (r.race.off, r.race.idx))
        self.runs = runs
        self.offs = [r.race.off for r in runs]
        self.wins = [0]
        self.places = [0]
        for r in runs:
            self.wins.append(self.wins[-1] + (r.pos == 1))
            self.places.append(self.places[-1] + (r.pos in (2, 3)))

    def visible(self, off: int) -> int:
        """Number of runs with Q.off < off and Q.off + 15 min < off (the point-in-time rule)."""
        return bisect.bisect_left(self.offs, off - RESULT_DELAY)

    def since(self, start: int) -> int:
        return bisect.bisect_left(self.offs, start)


def group(runs, keyf):
    d = collections.defaultdict(list)
    for r in runs:
        k = keyf(r)
        if k is not None:
            d[k].append(r)
    return {k: Series(v) for k, v in d.items()}


DEFAULT_OPTS = {
    'draw_thirds': 'all',       # draw race: >= 6 starters and all of them drawn ('any': at least one drawn)
    'period_tz': 'utc',         # calendar months in UTC ('uk': months of the UK local calendar)
    'in_force': 'at',           # monthly snapshot in force for races off at ('after': strictly after) its end
    'rank_ties': 'low',         # equal draws: the winner takes the lowest tied rank ('high', 'mean')
    'third_basis': 'rank',      # third = floor((rank-1)*3/n) ('rank-ceil': ceil(3*rank/n)-1; 'stall': floor((draw-1)*3/max draw))
    'dead_heat': 'split',       # dead heat for first: the race's win split between the winners' thirds ('full')
    'snap_vis': 'pub',          # snapshot covers races with off and result publication before the period end ('off')
    'dbs_round': 'exact',       # drawBiasStrength from unrounded third rates ('rates-first': round rates to 4 dp first)
    'vpr_window': 'figures',    # vpr over the newest 6 runs that have a figure ('runs': figures among the newest 6 runs)
    'window': 'ms',             # 90/14 days as 90/14 x 86,400,000 ms ('ukcal': same UK clock time 90/14 days before)
    'lastrun_dates': 'utc',     # lastRunDays between UTC dates ('uk': UK local dates)
    'improving_exact': True,    # improvingVpr compares rounded figures exactly (False: float mean, as JS would)
}


def draw_race_contrib(race: Race, opts):
    """(low, mid, high) share of this race's win, or None when it is not a draw race."""
    rs = race.runners
    if len(rs) < 6:
        return None
    drawn = [r for r in rs if r.draw > 0]
    if opts['draw_thirds'] == 'all' and len(drawn) != len(rs):
        return None
    if not drawn:
        return None
    winners = [r for r in rs if r.pos == 1]
    if not winners:
        return (F(0), F(0), F(0))  # counted race with no winner (none in the real data)
    draws = sorted(r.draw for r in drawn)
    n = len(draws)
    out = [F(0), F(0), F(0)]
    for w in winners:
        if w.draw <= 0:
            continue
        lo = bisect.bisect_left(draws, w.draw) + 1  # 1 = lowest
        hi = bisect.bisect_right(draws, w.draw)
        rank = {'low': F(lo), 'high': F(hi), 'mean': F(lo + hi, 2)}[opts['rank_ties']]
        if opts['third_basis'] == 'rank':
            third = int((rank - 1) * 3 // n)
        elif opts['third_basis'] == 'rank-ceil':
            q = rank * 3 / n
            third = int(-(-q // 1)) - 1
        else:
            third = (w.draw - 1) * 3 // draws[-1]
        out[third] += F(1, len(winners)) if opts['dead_heat'] == 'split' else F(1)
    return tuple(out)


def uk_clock_minus_days(utc_ms: int, days: int) -> int:
    """The UTC instant of the same UK clock time `days` calendar days earlier."""
    s, e = bst_window(utc_date(utc_ms).year)
    local = EPOCH + dt.timedelta(milliseconds=utc_ms + (HOUR if s <= utc_ms < e else 0))
    return uk_local_to_utc_ms((local - dt.timedelta(days=days)).strftime('%m/%d/%Y %H:%M:%S'))


def uk_date(utc_ms: int) -> dt.date:
    s, e = bst_window(utc_date(utc_ms).year)
    return utc_date(utc_ms + (HOUR if s <= utc_ms < e else 0))


# ------------------------------------------------------------------------------------------ compute
def compute(races, opts=None):
    opts = {**DEFAULT_OPTS, **(opts or {})}
    all_runs = [r for race in races for r in race.runners]
    by_horse = group(all_runs, lambda r: r.horse)
    by_jockey = group(all_runs, lambda r: r.jockey)
    by_trainer = group(all_runs, lambda r: r.trainer)
    by_sire = group(all_runs, lambda r: r.sire)
    by_horse_course = group(all_runs, lambda r: (r.horse, r.race.course))
    # per horse: indices (into its series) of the runs that have a figure
    fig_idx = {h: [i for i, r in enumerate(s.runs) if r.fig is not None] for h, s in by_horse.items()}
    # draw-bias: per snapshot key, draw races ordered by result publication
    snap = collections.defaultdict(list)
    for race in races:
        c = draw_race_contrib(race, opts)
        if c is not None:
            snap[race.key].append((race.pub if opts['snap_vis'] == 'pub' else race.off, c, race))
    snap_idx = {}
    for k, lst in snap.items():
        lst.sort(key=lambda x: x[0])
        pubs, lo, hi = [], [F(0)], [F(0)]
        for p, c, _ in lst:
            pubs.append(p)
            lo.append(lo[-1] + c[0])
            hi.append(hi[-1] + c[2])
        snap_idx[k] = (pubs, lo, hi)

    out = {}
    W = [F(4, 5) ** i for i in range(6)]
    for race in races:
        T = race.off
        if opts['period_tz'] == 'utc':
            period_end = month_start_ms(T)
        else:
            d = uk_date(T)
            period_end = uk_local_to_utc_ms(f'{d.month:02d}/01/{d.year} 00:00:00')
        if opts['in_force'] == 'after' and period_end == T:
            period_end = month_start_ms(T - 1)
        for r in race.runners:
            row = {}
            hs = by_horse[r.horse]
            k = hs.visible(T)
            hist = hs.runs[:k][::-1]  # newest first
            row['position'] = r.pos if 1 <= r.pos <= 9 else 0
            row['careerRuns'] = k
            row['careerWins'] = hs.wins[k]
            last5 = hist[:5]
            row['winRatioLast5'] = rate(sum(q.pos == 1 for q in last5), len(last5))
            cs = by_horse_course[(r.horse, race.course)]
            ck = cs.visible(T)
            cruns = cs.runs[max(0, ck - 5):ck]
            pts = sum({1: 3, 2: 2, 3: 1}.get(q.pos, 0) for q in cruns)
            row['courseForm'] = rate(pts, 3 * len(cruns))
            row['courseFormRuns'] = len(cruns)
            # vpr
            fi = fig_idx[r.horse]
            nf = bisect.bisect_left(fi, k)
            if opts['vpr_window'] == 'figures':
                used = [hs.runs[i] for i in fi[max(0, nf - 6):nf]][::-1]
            else:
                used = [q for q in hist[:6] if q.fig is not None]
            n = len(used)
            figs = [q.fig for q in used]
            if n:
                v = sum(w * f for w, f in zip(W, figs)) / sum(W[:n])
                row['vpr'] = round_half_away(v, 1)
                row['_vpr_half'] = any(q.fig_half for q in used) or is_half(v, 1)
            else:
                row['vpr'] = F(0)
                row['_vpr_half'] = False
            row['vprConfidence'] = F(min(n, 6), 6)
            if opts['improving_exact']:
                row['improvingVpr'] = n >= 3 and figs[0] > sum(figs[1:]) / (n - 1)
            else:
                row['improvingVpr'] = n >= 3 and float(figs[0]) > sum(float(x) for x in figs[1:]) / (n - 1)
            row['_figs'] = figs
            # jockey 90 days
            js = by_jockey[r.jockey]
            jk = js.visible(T)
            j0 = js.since(T - 90 * DAY if opts['window'] == 'ms' else uk_clock_minus_days(T, 90))
            j0 = min(j0, jk)
            row['jockeyRides90Day'] = jk - j0
            row['jockeyWinRate90Day'] = rate(js.wins[jk] - js.wins[j0], jk - j0)
            # trainer 14 days
            ts = by_trainer[r.trainer]
            tk = ts.visible(T)
            t0 = min(ts.since(T - 14 * DAY if opts['window'] == 'ms' else uk_clock_minus_days(T, 14)), tk)
            tw, tp, tr = ts.wins[tk] - ts.wins[t0], ts.places[tk] - ts.places[t0], tk - t0
            row['trainerRunners14Day'] = tr
            row['trainer14DayWinRate'] = rate(tw, tr)
            row['stableForm'] = f'{tw}-{tp}-{tr}'
            # sire
            if r.sire is None:
                row['sireProgenyRuns'] = 0
                row['sireProgenyWinRate'] = F(0)
            else:
                ss = by_sire[r.sire]
                sk = ss.visible(T)
                row['sireProgenyRuns'] = sk
                row['sireProgenyWinRate'] = rate(ss.wins[sk], sk)
            # draw bias
            si = snap_idx.get(race.key)
            nd = bisect.bisect_left(si[0], period_end) if si else 0
            if si and nd and r.draw > 0:
                if opts['dbs_round'] == 'exact':
                    row['drawBiasStrength'] = abs(si[1][nd] - si[2][nd]) / nd
                else:
                    row['drawBiasStrength'] = abs(round_half_away(si[1][nd] / nd, 4) - round_half_away(si[2][nd] / nd, 4))
            else:
                row['drawBiasStrength'] = F(0)
            row['drawBiasRaces'] = nd if r.draw > 0 else 0
            row['_drawBiasRacesSnapshot'] = nd
            # deltas
            if hist:
                p = hist[0]
                row['distanceDifferenceY'] = race.yards - p.race.yards
                row['weightDifferenceLbs'] = r.weight - p.weight
                row['ratingDifference'] = r.rating - p.rating if r.rating and p.rating else -999
                row['classDifference'] = p.race.cls - race.cls if p.race.cls and race.cls else -999
                dates = utc_date if opts['lastrun_dates'] == 'utc' else uk_date
                row['lastRunDays'] = min((dates(T) - dates(p.race.off)).days, 729)
                row['_last'] = p
            else:
                for f in ('distanceDifferenceY', 'weightDifferenceLbs', 'ratingDifference', 'classDifference'):
                    row[f] = -999
                row['lastRunDays'] = 730
                row['_last'] = None
            # card / identity fields (extensions)
            row['status'] = 'final'
            row['computedAtUtc'] = iso(race.pub)
            row['offTime'] = iso(T)
            row['courseId'] = make_id('course', f'lsr:course:{race.course}')
            row['jockeyId'] = make_id('jockey', f'lsr:jockey:{r.jockey}')
            row['trainerId'] = make_id('trainer', f'lsr:trainer:{r.trainer}')
            row['sireId'] = make_id('sire', f'lsr:sire:{r.sire}') if r.sire else None
            row['draw'] = r.draw
            row['weightLbs'] = r.weight
            row['officialRating'] = r.rating
            row['fieldSize'] = len(race.runners)
            row['distanceYards'] = race.yards
            row['raceClass'] = race.cls
            row['disciplineCode'] = DISCIPLINES.index(race.disc) + 1
            row['surfaceCode'] = SURFACES.index(race.surf) + 1
            row['goingCode'] = GOING_CODE.get(race.going.lower(), 0)
            row['distanceBucketCode'] = BUCKETS.index(bucket(race.yards)) + 1
            for f in ('courseTotalClimbM', 'courseUndulationIndex', 'courseElevationRangeM'):
                row[f] = None
            row['_run'] = r
            out[(make_id('race', f'lsr:race:{race.course}:{race.off_raw}'), make_id('horse', f'lsr:horse:{r.horse}'))] = row
    return out


# ------------------------------------------------------------------------------------------ compare
RATE4 = ['courseForm', 'winRatioLast5', 'vprConfidence', 'jockeyWinRate90Day', 'trainer14DayWinRate',
         'sireProgenyWinRate', 'drawBiasStrength']
TENTH = ['vpr']
FIELDS = ['position', 'status', 'computedAtUtc', 'offTime', 'courseId', 'jockeyId', 'trainerId', 'sireId', 'draw',
          'weightLbs', 'officialRating', 'fieldSize', 'distanceYards', 'raceClass', 'disciplineCode', 'surfaceCode',
          'goingCode', 'distanceBucketCode', 'careerRuns', 'careerWins', 'courseForm', 'courseFormRuns',
          'winRatioLast5', 'vpr', 'vprConfidence', 'improvingVpr', 'jockeyWinRate90Day', 'jockeyRides90Day',
          'trainer14DayWinRate', 'trainerRunners14Day', 'stableForm', 'sireProgenyWinRate', 'sireProgenyRuns',
          'drawBiasStrength', 'drawBiasRaces', 'distanceDifferenceY', 'ratingDifference', 'weightDifferenceLbs',
          'classDifference', 'lastRunDays', 'courseTotalClimbM', 'courseUndulationIndex', 'courseElevationRangeM']


def describe(row) -> str:
    r = row['_run']
    race = r.race
    s = (f'race lsr:race:{race.course}:{race.off_raw} (off {iso(race.off)}, {race.disc}/{race.surf}/{bucket(race.yards)}, '
         f'{race.yards}y, class {race.cls}) horse {r.horse} jockey {r.jockey} trainer {r.trainer} sire {r.sire} '
         f'draw {r.draw} [{r.line}]')
    p = row['_last']
    if p is not None:
        s += (f'; last run lsr:race:{p.race.course}:{p.race.off_raw} off {iso(p.race.off)} {p.race.yards}y '
              f'class {p.race.cls} weight {p.weight} OR {p.rating} pos {p.pos}')
    return s


def compare(mine, export_path, n_examples, explain_fields):
    mism = collections.Counter()
    halves = collections.Counter()
    examples = collections.defaultdict(list)
    seen = 0
    missing = []
    with open(export_path) as fh:
        for line in fh:
            e = json.loads(line)
            key = (e['raceId'], e['horseId'])
            m = mine.get(key)
            if m is None:
                missing.append(key)
                continue
            seen += 1
            m['_seen'] = True
            for f in FIELDS:
                a, b = m[f], e.get(f, '<absent>')
                if f in RATE4 or f in TENTH:
                    places = 4 if f in RATE4 else 1
                    ua = round_half_away(a, places) * 10 ** places
                    try:
                        ub = F(repr(b)) * 10 ** places
                    except (TypeError, ValueError):
                        ub = None
                    if ub == ua:
                        continue
                    near_half = (m['_vpr_half'] if f == 'vpr' else is_half(a, places)) or \
                        abs(float(a) * 10 ** places % 1 - 0.5) < 1e-9
                    if ub is not None and abs(ub - ua) == 1 and near_half:
                        halves[f] += 1
                        continue
                    shown_a = num(round_half_away(a, places))
                else:
                    if a == b:
                        continue
                    if f == 'improvingVpr' and m['_vpr_half']:
                        halves[f] += 1
                        continue
                    shown_a = a
                mism[f] += 1
                if len(examples[f]) < n_examples:
                    examples[f].append((key, shown_a, b, m, e))
    not_exported = [k for k, v in mine.items() if not v.get('_seen')]
    return seen, missing, not_exported, mism, halves, examples


def detail(f, m, e):
    if f in ('vpr', 'vprConfidence', 'improvingVpr'):
        return f"figures used (newest first, tenths): {[str(x) for x in m['_figs']]}"
    if f in ('jockeyWinRate90Day', 'jockeyRides90Day'):
        return f"mine {m['jockeyRides90Day']} rides; export {e['jockeyRides90Day']} rides"
    if f in ('trainer14DayWinRate', 'trainerRunners14Day', 'stableForm'):
        return f"mine {m['stableForm']}; export {e['stableForm']}"
    if f in ('sireProgenyWinRate', 'sireProgenyRuns'):
        return f"mine {m['sireProgenyRuns']} runs; export {e['sireProgenyRuns']} runs"
    if f in ('drawBiasStrength', 'drawBiasRaces'):
        return f"mine {m['_drawBiasRacesSnapshot']} draw races in snapshot; export drawBiasRaces {e['drawBiasRaces']}"
    if f in ('courseForm', 'courseFormRuns'):
        return f"mine {m['courseFormRuns']} course runs; export {e['courseFormRuns']}"
    return ''


def explain(races, mine, export_path, course, off, horse):
    rid = make_id('race', f'lsr:race:{course}:{off}')
    hid = make_id('horse', f'lsr:horse:{horse}')
    m = mine[(rid, hid)]
    e = None
    with open(export_path) as fh:
        for line in fh:
            if rid in line and hid in line:
                e = json.loads(line)
    print(f'\n== explain {course}|{off}|{horse} ({rid} {hid})\n  {describe(m)}')
    for f in FIELDS:
        a = _val(m, f)
        a = num(a) if isinstance(a, F) else a
        b = e.get(f) if e else None
        print(f"  {f:22} mine {a!r:28} export {b!r}{'   <-- differs' if a != b else ''}")
    T = m['_run'].race.off
    runs = sorted((q for rc in races for q in rc.runners if q.horse == horse and q.race.off < T),
                  key=lambda q: -q.race.off)
    print('  history (newest first; visible iff off + 15 min < this off):')
    for q in runs:
        rc = q.race
        lpl = min(max(F(3300, rc.yards), F(1, 2)), F(3))
        raw = rc.standard - min(q.obd, F(30)) * lpl + (q.weight - 140) * F(1, 2) if q.pos >= 1 else None
        print(f'    lsr:race:{rc.course}:{rc.off_raw} off {iso(rc.off)} pos {q.pos} {q.status} obd {q.obd} '
              f'{rc.yards}y class {rc.cls} weight {q.weight} OR {q.rating} standard {rc.standard} '
              f'({float(rc.standard):.4f}) lbs/length {lpl} raw figure {raw} '
              f"({'%.6f' % float(raw) if raw is not None else '-'}) -> {q.fig} [{q.line}]")


PROBES = [
    ('draw_thirds', 'any'), ('period_tz', 'uk'), ('in_force', 'after'), ('rank_ties', 'high'), ('rank_ties', 'mean'),
    ('third_basis', 'rank-ceil'), ('third_basis', 'stall'),
    ('dead_heat', 'full'), ('snap_vis', 'off'), ('dbs_round', 'rates-first'), ('vpr_window', 'runs'),
    ('window', 'ukcal'), ('lastrun_dates', 'uk'), ('improving_exact', False),
]


def _val(m, f):
    v = m[f]
    if isinstance(v, F):
        return round_half_away(v, 4 if f in RATE4 else 1)
    return v


def probe(races, base, export_path):
    exp = {}
    with open(export_path) as fh:
        for line in fh:
            e = json.loads(line)
            exp[(e['raceId'], e['horseId'])] = e
    print('\n== ambiguity probe: rows whose value changes under the alternative reading '
          '(and of those, how many the export matches under that reading)')
    for k, v in PROBES:
        alt = compute(races, {k: v})
        changed = collections.Counter()
        agree_alt = collections.Counter()
        for key, m in alt.items():
            b = base[key]
            for f in FIELDS:
                if _val(m, f) != _val(b, f):
                    changed[f] += 1
                    e = exp.get(key)
                    ev = e[f] if e else None
                    if f in RATE4 or f in TENTH:
                        ev = F(repr(ev)) if ev is not None else None
                    if ev == (num(_val(m, f)) if isinstance(_val(m, f), F) else _val(m, f)) or \
                            (isinstance(ev, F) and ev == _val(m, f)):
                        agree_alt[f] += 1
        desc = ', '.join(f'{f} {n} (export agrees with alternative: {agree_alt[f]})' for f, n in changed.items()) or 'no row changes'
        print(f'  {k}={v}: {desc}')


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--data', default=os.path.normpath(os.path.join(here, '../../../shared/data/lsr-racingdata')))
    ap.add_argument('--export', default='/tmp/verify-export.ndjson')
    ap.add_argument('--examples', type=int, default=5)
    ap.add_argument('--opt', action='append', default=[], metavar='NAME=VALUE',
                    help='switch one reading of an ambiguity (see DEFAULT_OPTS), e.g. draw_thirds=any')
    ap.add_argument('--explain', action='append', default=[], metavar='COURSEID|OFF|HORSEID',
                    help='print one runner: my row, the export row, and the history runs with their figure inputs')
    ap.add_argument('--probe', action='store_true',
                    help='for every alternative reading in PROBES: how many rows it changes, and how many of '
                         'those then disagree with the export')
    ap.add_argument('--dump', help='write my rows as NDJSON here')
    args = ap.parse_args()

    t0 = time.time()
    races, rows, dups, paths = load(args.data)
    nruns = sum(len(r.runners) for r in races)
    print(f'files {len(paths)}, rows {rows}, duplicates dropped {dups}, races {len(races)}, runners {nruns} '
          f'(load {time.time() - t0:.1f}s)')
    t1 = time.time()
    opts = {}
    for o in args.opt:
        k, v = o.split('=', 1)
        if k not in DEFAULT_OPTS:
            ap.error(f'unknown option {k}')
        opts[k] = (v == 'true') if isinstance(DEFAULT_OPTS[k], bool) else v
    mine = compute(races, opts)
    print(f'computed {len(mine)} rows ({time.time() - t1:.1f}s)')
    if args.dump:
        with open(args.dump, 'w') as fh:
            for (rid, hid), m in mine.items():
                o = {k: (num(round_half_away(v, 4 if k in RATE4 else 1)) if isinstance(v, F) else v)
                     for k, v in m.items() if not k.startswith('_')}
                o.update(raceId=rid, horseId=hid)
                fh.write(json.dumps(o, sort_keys=True) + '\n')
    if not os.path.exists(args.export):
        print(f'no export at {args.export}; nothing compared')
        return 0
    seen, missing, not_exported, mism, halves, examples = compare(mine, args.export, args.examples, None)
    print(f'compared {seen} runners; export rows without a match here: {len(missing)}; '
          f'my rows absent from the export: {len(not_exported)}')
    print(f"\n{'field':24} {'mismatches':>10} {'half-ulp':>9}")
    for f in FIELDS:
        print(f'{f:24} {mism[f]:>10} {halves[f]:>9}')
    for f in FIELDS:
        if not examples[f]:
            continue
        print(f'\n== {f}: {mism[f]} mismatches')
        for key, a, b, m, e in examples[f]:
            print(f'  mine {a!r} export {b!r} :: {describe(m)}')
            d = detail(f, m, e)
            if d:
                print(f'      {d}')
    for x in args.explain:
        explain(races, mine, args.export, *x.split('|'))
    if args.probe:
        probe(races, mine, args.export)
    print(f'\ntotal time {time.time() - t0:.1f}s')
    # Exit 1 on any mismatch beyond the tolerated rounding halves, so CI can run the comparison.
    return 1 if any(mism[f] for f in FIELDS) else 0


if __name__ == '__main__':
    sys.exit(main())
