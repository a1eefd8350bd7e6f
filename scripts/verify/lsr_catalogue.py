"""The 162 fields of ../shared/spec/catalogue.md, recomputed from the results files.

Written from catalogue.md, features.md and docs/importer.md alone (no look at domain/features/**,
streams/processors/**, state/aggregates/**). Counts and rates are exact rationals (fractions.Fraction);
sums of 1/SP over long windows use 60-digit decimals (exact rationals there grow without bound), so
"on a rounding half" is decided to 1e-9 of the last kept place for A/E alone.

`add_catalogue(races, rows, opts)` adds the catalogue fields to the rows of lsr_confirmed.compute();
each row's `_tol` set names the fields whose exact value, or a rounded input of it, sits on a half
(features.md: two correct implementations may differ by one unit in the last kept place there).
"""
from __future__ import annotations

import bisect
import collections
import decimal
from fractions import Fraction as F

from lsr_confirmed import draw_race_contrib
from lsr_source import (DAY, PATTERN_CODE, RESULT_DELAY, SEX_CODE, make_id, month_start_ms, near_half, rate,
                        round_half_away, utc_date)

D60 = decimal.Context(prec=60)

# (name, kind): int, bool, str, or dpN = a number rounded to N places (null allowed where the spec says)
CATALOGUE = [
    # A
    ('isHandicap', 'bool'), ('patternCode', 'int'), ('goingGroupCode', 'int'), ('monthOfYear', 'int'),
    ('courseDirectionCode', 'int'),
    # B
    ('age', 'int'), ('sexCode', 'int'), ('headgear', 'str'), ('hasHeadgear', 'bool'), ('jockeyClaimLbs', 'int'),
    ('weightVsTopLbs', 'int'), ('weightVsMeanLbs', 'dp4'), ('drawPct', 'dp4'), ('drawThirdCode', 'int'),
    ('officialRatingGapToTop', 'int'), ('stableRunnersInRace', 'int'),
    # C
    ('careerWinRate', 'dp4'), ('careerPlaces', 'int'), ('careerPlaceRate', 'dp4'), ('careerFormScore', 'dp4'),
    ('formScoreLast3', 'dp4'), ('formScoreLast6', 'dp4'), ('lastPosition', 'int'), ('lastBeatenLengths', 'dp4'),
    ('meanBeatenLengthsLast3', 'dp4'), ('lastPrb', 'dp4'), ('meanPrbLast3', 'dp4'), ('careerPrb', 'dp4'),
    ('runsLast90Days', 'int'), ('runsLast365Days', 'int'), ('winsLast365Days', 'int'), ('daysSinceLastWin', 'int'),
    ('runsSinceLastWin', 'int'), ('isDebut', 'bool'), ('isReappearance', 'bool'), ('nonCompletionsLast5', 'int'),
    ('lastRunWon', 'bool'), ('winStreak', 'int'),
    # D
    ('lastFigure', 'dp1'), ('bestFigureLast3', 'dp1'), ('meanFigureLast3', 'dp1'), ('careerBestFigure', 'dp1'),
    ('lastOfficialRating', 'int'), ('careerMaxOfficialRating', 'int'), ('officialRatingVsCareerMax', 'int'),
    ('lastWinOfficialRating', 'int'), ('vprMinusOfficialRating', 'dp1'),
    # E
    ('surfaceSwitch', 'bool'), ('disciplineSwitch', 'bool'), ('firstTimeChase', 'bool'), ('firstTimeHurdle', 'bool'),
    ('firstTimeAw', 'bool'), ('handicapDebut', 'bool'), ('goingGroupChanged', 'bool'), ('fieldSizeDifference', 'int'),
    ('untriedDistanceBucket', 'bool'), ('untriedGoingGroup', 'bool'), ('untriedSurface', 'bool'),
    ('trainerChanged', 'bool'), ('runsForTrainer', 'int'), ('jockeyChanged', 'bool'), ('ownerChanged', 'bool'),
    # F
    ('firstTimeHeadgear', 'bool'), ('headgearChanged', 'bool'), ('headgearRemoved', 'bool'),
    ('runsInTodaysHeadgear', 'int'),
]
SCOPES = ['Course', 'Distance', 'Going', 'Surface', 'Discipline', 'Class', 'CourseDistance']
CATALOGUE += [(f'horse{s}{x}', 'dp4' if x == 'FormScore' else 'int') for s in SCOPES for x in ('Runs', 'Wins', 'FormScore')]
CATALOGUE += [('horseJockeyRuns', 'int'), ('horseJockeyWins', 'int')]
# I
CATALOGUE += [('snapshotRaces', 'int')] + [(f, 'dp4') for f in (
    'snapshotMeanFieldSize', 'snapshotFavouriteWinRate', 'snapshotFavouritePlaceRate', 'snapshotDrawLowWinRate',
    'snapshotDrawMiddleWinRate', 'snapshotDrawHighWinRate', 'drawBias', 'drawThirdWinRate')]
# J and K: the same thirteen shapes


def person_fields(who: str, runs: str, short: int):
    return [(f'{who}{runs}{short}Day', 'int'), (f'{who}WinRate{short}Day', 'dp4'), (f'{who}{runs}365Day', 'int'),
            (f'{who}WinRate365Day', 'dp4'), (f'{who}PlaceRate365Day', 'dp4'), (f'{who}Ae365Day', 'dp4'),
            (f'{who}LevelStakes365Day', 'dp2'), (f'{who}ShrunkWinRate365Day', 'dp4'), (f'{who}Course{runs}5Year', 'int'),
            (f'{who}CourseWinRate5Year', 'dp4'), (f'{who}Discipline{runs}365Day', 'int'),
            (f'{who}DisciplineWinRate365Day', 'dp4'), (f'{who}DaysSinceLastWinner', 'int')]


PERSONS = [('jockey', 'Rides', 14), ('trainer', 'Runners', 30)]
for _p in PERSONS:
    CATALOGUE += person_fields(*_p)
CATALOGUE += [
    # L
    ('trainerJockeyRuns365Day', 'int'), ('trainerJockeyWinRate365Day', 'dp4'), ('trainerJockeyAe365Day', 'dp4'),
    ('ownerRunners365Day', 'int'), ('ownerWinRate365Day', 'dp4'), ('ownerAe365Day', 'dp4'),
    # M
    ('sireProgenyPlaceRate', 'dp4'), ('sireProgenyAe', 'dp4'), ('sireShrunkWinRate', 'dp4'),
    ('sireSurfaceRuns', 'int'), ('sireSurfaceWinRate', 'dp4'), ('sireGoingRuns', 'int'), ('sireGoingWinRate', 'dp4'),
    ('sireDistanceRuns', 'int'), ('sireDistanceWinRate', 'dp4'), ('sireDisciplineRuns', 'int'),
    ('sireDisciplineWinRate', 'dp4'), ('sireMeanWinningDistanceY', 'dp1'), ('damSireProgenyRuns', 'int'),
    ('damSireProgenyWinRate', 'dp4'), ('damSireDistanceRuns', 'int'), ('damSireDistanceWinRate', 'dp4'),
    ('damSireMeanWinningDistanceY', 'dp1'), ('damProgenyRuns', 'int'), ('damProgenyWins', 'int'),
    ('damProgenyWinRate', 'dp4'),
    # N
    ('lastStartingPrice', 'dp2'), ('lastRunFavourite', 'bool'), ('beatenFavouriteLast', 'bool'),
    ('meanImpliedProbabilityLast3', 'dp4'), ('careerFavouriteRuns', 'int'), ('horseAe', 'dp4'),
    # R
    ('vprRankInRace', 'int'), ('vprGapToBest', 'dp1'), ('officialRatingRankInRace', 'int'), ('weightRankInRace', 'int'),
    ('jockeyWinRate90DayRankInRace', 'int'), ('trainer14DayWinRateRankInRace', 'int'),
]
assert len(CATALOGUE) == 162 and len({n for n, _ in CATALOGUE}) == 162

# Fields whose value here rests on an importer mapping that is not features.md's (docs/importer.md).
IMPORTER_MAPPED = {
    'isHandicap': 'race name contains "handicap"', 'patternCode': 'Pattern column', 'sexCode': 'SexRestriction, '
    'race name, Age, GeldingFirstTime', 'headgear': 'HeadGear', 'jockeyClaimLbs': 'JockeyAllowanceLbs (2026-06..08)',
    'owner*': 'OwnerId (2026-06..08)', 'dam*': 'DamName (2026-06..08)', 'damSire*': 'no column: always unknown',
    'courseDirectionCode': 'course records: direction unknown',
}

# Readings of catalogue.md where it leaves room (docs/features.md "Readings of catalogue.md"); --opt switches.
CAT_OPTS = {
    'card_draw_ties': 'horse-id',  # today's drawn runners ordered by (draw, horseId): distinct ranks ('low', 'high', 'mean': ties share)
    'implied_last3': 'sp-runs',    # meanImpliedProbabilityLast3: newest 3 runs with an SP ('last3': those among the last 3 runs)
    'prb_sole_nonfinisher': 0,     # PRB of a non-finisher that ran alone: 0 (non-finisher first) or 1
    'figures_last3': 'figures',    # best/meanFigureLast3: newest 3 runs with a figure ('runs': the figures among the last 3 runs)
    'shrunk_unknown_sire': 0,      # sireShrunkWinRate when the sire is unknown: 0 (family unknown value) or 0.1 (the prior)
    'rank_basis': 'published',     # ranks compare the published (rounded) values ('exact': unrounded)
    'beaten_lengths_dp': 4,        # last/meanBeatenLengths rounded to 4 dp, catalogue.md's default rule ('2')
}


# ------------------------------------------------------------------------------------------ indexes
class Hist:
    """Runs of one key sorted by (off, race idx), with prefix sums for windowed counts."""
    __slots__ = ('runs', 'offs', 'wins', 'places', 'spn', 'spw', 'inv', 'ls', 'winy', 'lastwin')

    def __init__(self, runs, sp: bool, winy: bool, lastwin: bool):
        runs.sort(key=lambda r: (r.race.off, r.race.idx))
        self.runs = runs
        self.offs = [r.race.off for r in runs]
        self.wins = [0]
        self.places = [0]
        for r in runs:
            self.wins.append(self.wins[-1] + (r.pos == 1))
            self.places.append(self.places[-1] + (1 <= r.pos <= 3))
        self.spn = self.spw = self.inv = self.ls = self.winy = self.lastwin = None
        if sp:
            self.spn, self.spw, self.inv, self.ls = [0], [0], [decimal.Decimal(0)], [F(0)]
            for r in runs:
                has = r.sp is not None
                self.spn.append(self.spn[-1] + has)
                self.spw.append(self.spw[-1] + (has and r.pos == 1))
                inv = D60.divide(decimal.Decimal(r.sp.denominator), decimal.Decimal(r.sp.numerator)) if has else 0
                self.inv.append(D60.add(self.inv[-1], inv))
                self.ls.append(self.ls[-1] + (r.sp / r.race.winners - 1 if r.pos == 1 else F(-1)) if has else self.ls[-1])
        if winy:
            self.winy = [0]
            for r in runs:
                self.winy.append(self.winy[-1] + (r.race.yards if r.pos == 1 else 0))
        if lastwin:
            self.lastwin = [None]
            for r in runs:
                self.lastwin.append(r.race.off if r.pos == 1 else self.lastwin[-1])

    def visible(self, off: int) -> int:
        """Runs with Q.off < off and Q.off + 15 min < off (the point-in-time rule)."""
        return bisect.bisect_left(self.offs, off - RESULT_DELAY)

    def window(self, T: int, days: int | None):
        k = self.visible(T)
        j = 0 if days is None else min(bisect.bisect_left(self.offs, T - days * DAY), k)
        return j, k

    def ae(self, j: int, k: int):
        """(A/E, near a half at 4 dp) over runs[j:k]."""
        inv = D60.subtract(self.inv[k], self.inv[j])
        if inv == 0:
            return F(0), False
        v = F(self.spw[k] - self.spw[j]) / F(inv)
        return v, near_half(v, 4)


def index(runs, keyf, sp=False, winy=False, lastwin=False):
    d = collections.defaultdict(list)
    for r in runs:
        k = keyf(r)
        if k is not None:
            d[k].append(r)
    return {k: Hist(v, sp, winy, lastwin) for k, v in d.items()}


def snapshot_index(races, opts):
    """Per snapshot key: races ordered by result publication with prefix sums of what a snapshot holds."""
    lists = collections.defaultdict(list)
    for race in races:
        ran = len(race.runners)
        places = 1 if ran < 5 else 2 if ran < 8 else 3
        favs = [r for r in race.runners if r.fav]
        c = draw_race_contrib(race, opts)
        lists[race.key].append((race.pub, ran, bool(favs), any(r.pos == 1 for r in favs),
                                any(1 <= r.pos <= places for r in favs), c))
    out = {}
    for key, lst in lists.items():
        lst.sort(key=lambda x: x[0])
        pubs = [x[0] for x in lst]
        acc = [(0, 0, 0, 0, 0, 0, F(0), F(0), F(0))]
        for _, ran, hf, fw, fp, c in lst:
            a = acc[-1]
            acc.append((a[0] + 1, a[1] + ran, a[2] + hf, a[3] + fw, a[4] + fp, a[5] + (c is not None),
                        a[6] + (c[0] if c else 0), a[7] + (c[1] if c else 0), a[8] + (c[2] if c else 0)))
        out[key] = (pubs, acc)
    return out


# ------------------------------------------------------------------------------------------ helpers
PTS = {1: 3, 2: 2, 3: 1}


def form(runs) -> F:
    return rate(sum(PTS.get(q.pos, 0) for q in runs), 3 * len(runs))


def days_between(a_ms: int, b_ms: int) -> int:
    return min((utc_date(b_ms) - utc_date(a_ms)).days, 729)


def ranks(values):
    """Competition ranking, 1 = highest, ties share the best rank; None (no value) -> 0."""
    have = [v for v in values if v is not None]
    return [0 if v is None else 1 + sum(1 for w in have if w > v) for v in values]


def card_draw_ranks(race, ties: str):
    """{run: (r, n)} among today's drawn runners ordered by draw (equal draws: by horseId, or sharing a rank)."""
    draws = sorted(r.draw for r in race.runners if r.draw > 0)
    n = len(draws)
    out = {}
    if ties == 'horse-id':
        drawn = sorted((r.draw, make_id('horse', f'lsr:horse:{r.horse}'), id(r)) for r in race.runners if r.draw > 0)
        return {key: (F(i + 1), n) for i, (_, _, key) in enumerate(drawn)}
    for r in race.runners:
        if r.draw > 0:
            lo = bisect.bisect_left(draws, r.draw) + 1
            hi = bisect.bisect_right(draws, r.draw)
            out[id(r)] = ({'low': F(lo), 'high': F(hi), 'mean': F(lo + hi, 2)}[ties], n)
    return out


# ------------------------------------------------------------------------------------------ compute
def add_catalogue(races, rows, opts=None, finish=None):
    """Adds the 162 catalogue fields to every row of `rows` ({(raceId, horseId): row}, from compute());
    `finish(key, row)`, when given, is called on each row once its race is complete."""
    from lsr_confirmed import DEFAULT_OPTS
    opts = {**DEFAULT_OPTS, **CAT_OPTS, **(opts or {})}
    runs = [r for race in races for r in race.runners]
    horse = index(runs, lambda r: r.horse)
    jockey = index(runs, lambda r: r.jockey, sp=True, lastwin=True)
    trainer = index(runs, lambda r: r.trainer, sp=True, lastwin=True)
    per = {
        'jockey': (jockey, index(runs, lambda r: (r.jockey, r.race.course)), index(runs, lambda r: (r.jockey, r.race.disc))),
        'trainer': (trainer, index(runs, lambda r: (r.trainer, r.race.course)), index(runs, lambda r: (r.trainer, r.race.disc))),
    }
    pair = index(runs, lambda r: (r.trainer, r.jockey), sp=True)
    owner = index(runs, lambda r: r.owner, sp=True)
    sire = index(runs, lambda r: r.sire, sp=True, winy=True)
    sire_by = {
        'Surface': index(runs, lambda r: (r.sire, r.race.surf) if r.sire else None),
        'Going': index(runs, lambda r: (r.sire, r.race.ggroup) if r.sire and r.race.ggroup else None),
        'Distance': index(runs, lambda r: (r.sire, r.race.bucket) if r.sire else None),
        'Discipline': index(runs, lambda r: (r.sire, r.race.disc) if r.sire else None),
    }
    dam_sire = index(runs, lambda r: r.dam_sire, winy=True)
    dam_sire_bucket = index(runs, lambda r: (r.dam_sire, r.race.bucket) if r.dam_sire else None)
    dam = index(runs, lambda r: r.dam)
    snaps = snapshot_index(races, opts)
    by_race = collections.defaultdict(list)
    for key, row in rows.items():
        by_race[id(row['_run'].race)].append((key, row))

    for race in races:
        T = race.off
        keyed = by_race.pop(id(race), [])
        race_rows = [row for _, row in keyed]
        snap = _snapshot_fields(snaps.get(race.key), month_start_ms(T))
        draw_rank = card_draw_ranks(race, opts['card_draw_ties'])
        weights = [r.weight for r in race.runners]
        rated = [r.rating for r in race.runners if r.rating > 0]
        stable = collections.Counter(r.trainer for r in race.runners)
        for row in race_rows:
            r = row['_run']
            tol = row.setdefault('_tol', set())
            # A
            row['isHandicap'] = race.handicap
            row['patternCode'] = PATTERN_CODE[race.pattern]
            row['goingGroupCode'] = race.ggroup
            row['monthOfYear'] = utc_date(T).month
            row['courseDirectionCode'] = 0  # the importer's course records have direction unknown
            # B
            row['age'] = r.age
            row['sexCode'] = SEX_CODE[r.sex]
            row['headgear'] = r.headgear
            row['hasHeadgear'] = r.headgear != ''
            row['jockeyClaimLbs'] = r.claim
            row['weightVsTopLbs'] = max(weights) - r.weight
            row['weightVsMeanLbs'] = r.weight - F(sum(weights), len(weights))
            if id(r) in draw_rank:
                rk, n = draw_rank[id(r)]
                row['drawPct'] = (rk - 1) / (n - 1) if n > 1 else F(0)
                row['drawThirdCode'] = int((rk - 1) * 3 // n) + 1
            else:
                row['drawPct'] = None
                row['drawThirdCode'] = 0
            row['officialRatingGapToTop'] = max(rated) - r.rating if r.rating > 0 else None
            row['stableRunnersInRace'] = stable[r.trainer]
            # C D E F G N: the horse's history, newest first
            hs = horse[r.horse]
            k = hs.visible(T)
            hist = hs.runs[:k][::-1]
            _horse_fields(row, r, race, hist, T, opts, tol)
            # I
            row.update(snap)
            third = row['drawThirdCode']
            names = ('snapshotDrawLowWinRate', 'snapshotDrawMiddleWinRate', 'snapshotDrawHighWinRate')
            row['drawThirdWinRate'] = snap[names[third - 1]] if third else F(0)
            # J K
            for who, runs_name, short in PERSONS:
                main, by_course, by_disc = per[who]
                me = getattr(r, who)
                _person_fields(row, who, runs_name, short, main[me], by_course[(me, race.course)],
                               by_disc[(me, race.disc)], T, tol)
            # L
            ps = pair[(r.trainer, r.jockey)]
            j, kk = ps.window(T, 365)
            row['trainerJockeyRuns365Day'] = kk - j
            row['trainerJockeyWinRate365Day'] = rate(ps.wins[kk] - ps.wins[j], kk - j)
            row['trainerJockeyAe365Day'], h = ps.ae(j, kk)
            if h:
                tol.add('trainerJockeyAe365Day')
            if r.owner is None:
                row['ownerRunners365Day'], row['ownerWinRate365Day'], row['ownerAe365Day'] = 0, F(0), F(0)
            else:
                os_ = owner[r.owner]
                j, kk = os_.window(T, 365)
                row['ownerRunners365Day'] = kk - j
                row['ownerWinRate365Day'] = rate(os_.wins[kk] - os_.wins[j], kk - j)
                row['ownerAe365Day'], h = os_.ae(j, kk)
                if h:
                    tol.add('ownerAe365Day')
            # M
            _breeding_fields(row, r, race, T, sire, sire_by, dam_sire, dam_sire_bucket, dam, opts, tol)
        _rank_fields(race_rows, opts)
        if finish is not None:
            for key, row in keyed:
                finish(key, row)


def _snapshot_fields(si, period_end: int):
    zero = {f: F(0) for f in ('snapshotMeanFieldSize', 'snapshotFavouriteWinRate', 'snapshotFavouritePlaceRate',
                              'snapshotDrawLowWinRate', 'snapshotDrawMiddleWinRate', 'snapshotDrawHighWinRate',
                              'drawBias')}
    n = bisect.bisect_left(si[0], period_end) if si else 0
    if not n:
        return {'snapshotRaces': 0, 'snapshotPeriod': '', **zero}
    races, runners, fav, favw, favp, draws, lo, mid, hi = si[1][n]
    # snapshots are rows for the months the key had a result in: the one joined is the month of the
    # latest result it covers (its values equal those of every later month without a result)
    month = utc_date(si[0][n - 1])
    return {
        'snapshotPeriod': f'{month.year:04d}-{month.month:02d}',
        'snapshotRaces': races,
        'snapshotMeanFieldSize': F(runners, races),
        'snapshotFavouriteWinRate': rate(favw, fav),
        'snapshotFavouritePlaceRate': rate(favp, fav),
        'snapshotDrawLowWinRate': lo / draws if draws else F(0),
        'snapshotDrawMiddleWinRate': mid / draws if draws else F(0),
        'snapshotDrawHighWinRate': hi / draws if draws else F(0),
        'drawBias': (lo - hi) / draws if draws else F(0),
    }


def _prb(q, opts) -> F:
    ran = len(q.race.runners)
    if q.pos == 0:
        return F(opts['prb_sole_nonfinisher']) if ran == 1 else F(0)
    return F(1) if ran == 1 else F(ran - q.pos, ran - 1)


def _horse_fields(row, r, race, hist, T, opts, tol):
    k = len(hist)
    last = hist[0] if hist else None
    wins = sum(q.pos == 1 for q in hist)
    places = sum(1 <= q.pos <= 3 for q in hist)
    first_win = next((i for i, q in enumerate(hist) if q.pos == 1), None)
    # C
    row['careerWinRate'] = rate(wins, k)
    row['careerPlaces'] = places
    row['careerPlaceRate'] = rate(places, k)
    row['careerFormScore'] = form(hist)
    row['formScoreLast3'] = form(hist[:3])
    row['formScoreLast6'] = form(hist[:6])
    row['lastPosition'] = last.pos if last else None
    row['lastBeatenLengths'] = None if last is None or last.pos == 0 else last.obd
    fin = [q.obd for q in hist[:3] if q.pos >= 1]
    row['meanBeatenLengthsLast3'] = sum(fin, F(0)) / len(fin) if fin else None
    bl_dp = int(opts['beaten_lengths_dp'])
    if bl_dp != 4:  # a coarser reading: round first (the comparison is at 4 dp)
        for f in ('lastBeatenLengths', 'meanBeatenLengthsLast3'):
            if row[f] is not None:
                if near_half(row[f], bl_dp):
                    tol.add(f)
                row[f] = round_half_away(row[f], bl_dp)
    prbs = [_prb(q, opts) for q in hist]
    row['lastPrb'] = prbs[0] if prbs else None
    row['meanPrbLast3'] = sum(prbs[:3], F(0)) / len(prbs[:3]) if prbs else None
    row['careerPrb'] = sum(prbs, F(0)) / k if k else None
    row['runsLast90Days'] = sum(q.race.off >= T - 90 * DAY for q in hist)
    row['runsLast365Days'] = sum(q.race.off >= T - 365 * DAY for q in hist)
    row['winsLast365Days'] = sum(q.race.off >= T - 365 * DAY and q.pos == 1 for q in hist)
    row['daysSinceLastWin'] = days_between(hist[first_win].race.off, T) if first_win is not None else 730
    row['runsSinceLastWin'] = first_win if first_win is not None else k
    row['isDebut'] = k == 0
    row['isReappearance'] = k > 0 and row['lastRunDays'] >= 90
    row['nonCompletionsLast5'] = sum(q.pos == 0 for q in hist[:5])
    row['lastRunWon'] = last is not None and last.pos == 1
    streak = 0
    while streak < k and hist[streak].pos == 1:
        streak += 1
    row['winStreak'] = streak
    # D
    row['lastFigure'] = last.fig if last else None
    if last is not None and last.fig_half:
        tol.add('lastFigure')
    if opts['figures_last3'] == 'figures':
        used3 = [q for q in hist if q.fig is not None][:3]
    else:
        used3 = [q for q in hist[:3] if q.fig is not None]
    if used3:
        row['bestFigureLast3'] = max(q.fig for q in used3)
        row['meanFigureLast3'] = sum((q.fig for q in used3), F(0)) / len(used3)
        if any(q.fig_half for q in used3):
            tol.update(('bestFigureLast3', 'meanFigureLast3'))
    else:
        row['bestFigureLast3'] = row['meanFigureLast3'] = None
    figs = [q for q in hist if q.fig is not None]
    if figs:
        best = max(q.fig for q in figs)
        row['careerBestFigure'] = best
        if any(q.fig_half and q.fig >= best - F(1, 10) for q in figs):
            tol.add('careerBestFigure')
    else:
        row['careerBestFigure'] = None
    row['lastOfficialRating'] = last.rating if last and last.rating > 0 else None
    ratings = [q.rating for q in hist if q.rating > 0]
    cmax = max(ratings) if ratings else None
    row['careerMaxOfficialRating'] = cmax
    row['officialRatingVsCareerMax'] = r.rating - cmax if r.rating > 0 and cmax is not None else None
    lw = hist[first_win] if first_win is not None else None
    row['lastWinOfficialRating'] = lw.rating if lw is not None and lw.rating > 0 else None
    if r.rating > 0 and row['vprConfidence'] > 0:
        row['vprMinusOfficialRating'] = round_half_away(row['vpr'], 1) - r.rating
        if row['_vpr_half']:
            tol.add('vprMinusOfficialRating')
    else:
        row['vprMinusOfficialRating'] = None
    # E
    row['surfaceSwitch'] = last is not None and last.race.surf != race.surf
    row['disciplineSwitch'] = last is not None and last.race.disc != race.disc
    row['firstTimeChase'] = race.disc == 'chase' and not any(q.race.disc == 'chase' for q in hist)
    row['firstTimeHurdle'] = race.disc == 'hurdle' and not any(q.race.disc == 'hurdle' for q in hist)
    row['firstTimeAw'] = race.surf == 'aw' and not any(q.race.surf == 'aw' for q in hist)
    row['handicapDebut'] = race.handicap and not any(q.race.handicap for q in hist)
    row['goingGroupChanged'] = (last is not None and last.race.ggroup != 0 and race.ggroup != 0
                                and last.race.ggroup != race.ggroup)
    row['fieldSizeDifference'] = len(race.runners) - len(last.race.runners) if last else None
    row['untriedDistanceBucket'] = not any(q.race.bucket == race.bucket for q in hist)
    row['untriedGoingGroup'] = race.ggroup != 0 and not any(q.race.ggroup == race.ggroup for q in hist)
    row['untriedSurface'] = not any(q.race.surf == race.surf for q in hist)
    row['trainerChanged'] = last is not None and last.trainer != r.trainer
    row['runsForTrainer'] = sum(q.trainer == r.trainer for q in hist)
    row['jockeyChanged'] = last is not None and last.jockey != r.jockey
    row['ownerChanged'] = (last is not None and last.owner is not None and r.owner is not None
                           and last.owner != r.owner)
    # F
    row['firstTimeHeadgear'] = r.headgear != '' and not any(q.headgear for q in hist)
    row['headgearChanged'] = last is not None and last.headgear != r.headgear
    row['headgearRemoved'] = last is not None and last.headgear != '' and r.headgear == ''
    row['runsInTodaysHeadgear'] = sum(q.headgear == r.headgear for q in hist)
    # G
    scope = {
        'Course': lambda q: q.race.course == race.course,
        'Distance': lambda q: q.race.bucket == race.bucket,
        'Going': lambda q: race.ggroup != 0 and q.race.ggroup == race.ggroup,
        'Surface': lambda q: q.race.surf == race.surf,
        'Discipline': lambda q: q.race.disc == race.disc,
        'Class': lambda q: race.cls != 0 and q.race.cls != 0 and q.race.cls <= race.cls,
        'CourseDistance': lambda q: q.race.course == race.course and q.race.bucket == race.bucket,
    }
    for s in SCOPES:
        ins = [q for q in hist if scope[s](q)]
        row[f'horse{s}Runs'] = len(ins)
        row[f'horse{s}Wins'] = sum(q.pos == 1 for q in ins)
        row[f'horse{s}FormScore'] = form(ins)
    row['horseJockeyRuns'] = sum(q.jockey == r.jockey for q in hist)
    row['horseJockeyWins'] = sum(q.jockey == r.jockey and q.pos == 1 for q in hist)
    # N
    row['lastStartingPrice'] = last.sp if last is not None and last.sp is not None else None
    row['lastRunFavourite'] = last is not None and last.fav
    row['beatenFavouriteLast'] = last is not None and last.fav and last.pos != 1
    if opts['implied_last3'] == 'sp-runs':
        sps = [q.sp for q in hist if q.sp is not None][:3]
    else:
        sps = [q.sp for q in hist[:3] if q.sp is not None]
    row['meanImpliedProbabilityLast3'] = sum((1 / s for s in sps), F(0)) / len(sps) if sps else None
    row['careerFavouriteRuns'] = sum(q.fav for q in hist)
    with_sp = [q for q in hist if q.sp is not None]
    inv = sum((1 / q.sp for q in with_sp), F(0))
    row['horseAe'] = F(sum(q.pos == 1 for q in with_sp)) / inv if inv else F(0)


def _person_fields(row, who, runs_name, short, main, by_course, by_disc, T, tol):
    def win_rate(h, j, k):
        return rate(h.wins[k] - h.wins[j], k - j)

    j, k = main.window(T, short)
    row[f'{who}{runs_name}{short}Day'] = k - j
    row[f'{who}WinRate{short}Day'] = win_rate(main, j, k)
    j, k = main.window(T, 365)
    n = k - j
    w = main.wins[k] - main.wins[j]
    row[f'{who}{runs_name}365Day'] = n
    row[f'{who}WinRate365Day'] = rate(w, n)
    row[f'{who}PlaceRate365Day'] = rate(main.places[k] - main.places[j], n)
    row[f'{who}Ae365Day'], h = main.ae(j, k)
    if h:
        tol.add(f'{who}Ae365Day')
    row[f'{who}LevelStakes365Day'] = main.ls[k] - main.ls[j]
    row[f'{who}ShrunkWinRate365Day'] = F(w + 2, n + 20)
    j, k = by_course.window(T, 1826)
    row[f'{who}Course{runs_name}5Year'] = k - j
    row[f'{who}CourseWinRate5Year'] = win_rate(by_course, j, k)
    j, k = by_disc.window(T, 365)
    row[f'{who}Discipline{runs_name}365Day'] = k - j
    row[f'{who}DisciplineWinRate365Day'] = win_rate(by_disc, j, k)
    last_win = main.lastwin[main.visible(T)]
    row[f'{who}DaysSinceLastWinner'] = days_between(last_win, T) if last_win is not None else 730


def _breeding_fields(row, r, race, T, sire, sire_by, dam_sire, dam_sire_bucket, dam, opts, tol):
    if r.sire is None:
        row.update(sireProgenyPlaceRate=F(0), sireProgenyAe=F(0), sireShrunkWinRate=F(opts['shrunk_unknown_sire']),
                   sireMeanWinningDistanceY=None)
        for s in sire_by:
            row[f'sire{s}Runs'], row[f'sire{s}WinRate'] = 0, F(0)
    else:
        ss = sire[r.sire]
        k = ss.visible(T)
        w = ss.wins[k]
        row['sireProgenyPlaceRate'] = rate(ss.places[k], k)
        row['sireProgenyAe'], h = ss.ae(0, k)
        if h:
            tol.add('sireProgenyAe')
        row['sireShrunkWinRate'] = F(w + 2, k + 20)
        row['sireMeanWinningDistanceY'] = F(ss.winy[k], w) if w else None
        today = {'Surface': race.surf, 'Going': race.ggroup, 'Distance': race.bucket, 'Discipline': race.disc}
        for s, idx in sire_by.items():
            hs = idx.get((r.sire, today[s])) if today[s] else None
            n = hs.visible(T) if hs else 0
            row[f'sire{s}Runs'] = n
            row[f'sire{s}WinRate'] = rate(hs.wins[n], n) if hs else F(0)
    if r.dam_sire is None:
        row.update(damSireProgenyRuns=0, damSireProgenyWinRate=F(0), damSireDistanceRuns=0,
                   damSireDistanceWinRate=F(0), damSireMeanWinningDistanceY=None)
    else:
        ds = dam_sire[r.dam_sire]
        k = ds.visible(T)
        row['damSireProgenyRuns'] = k
        row['damSireProgenyWinRate'] = rate(ds.wins[k], k)
        db = dam_sire_bucket[(r.dam_sire, race.bucket)]
        n = db.visible(T)
        row['damSireDistanceRuns'] = n
        row['damSireDistanceWinRate'] = rate(db.wins[n], n)
        row['damSireMeanWinningDistanceY'] = F(ds.winy[k], ds.wins[k]) if ds.wins[k] else None
    if r.dam is None:
        row.update(damProgenyRuns=0, damProgenyWins=0, damProgenyWinRate=F(0))
    else:
        d = dam[r.dam]
        k = d.visible(T)
        row.update(damProgenyRuns=k, damProgenyWins=d.wins[k], damProgenyWinRate=rate(d.wins[k], k))


def _rank_fields(race_rows, opts):
    """Family R: a second stage over the rows of the race (the card used = every runner of the files)."""
    pub = opts['rank_basis'] == 'published'

    def val(row, f, places, ok):
        if not ok(row):
            return None
        v = row[f]
        return round_half_away(v, places) if pub else v

    vprs = [val(x, 'vpr', 1, lambda x: x['vprConfidence'] > 0) for x in race_rows]
    vpr_half = any(x['_vpr_half'] for x in race_rows)
    best = max((v for v in vprs if v is not None), default=None)
    jr = [val(x, 'jockeyWinRate90Day', 4, lambda x: x['jockeyRides90Day'] > 0) for x in race_rows]
    tr = [val(x, 'trainer14DayWinRate', 4, lambda x: x['trainerRunners14Day'] > 0) for x in race_rows]
    jr_half = any(near_half(x['jockeyWinRate90Day'], 4) for x in race_rows)
    tr_half = any(near_half(x['trainer14DayWinRate'], 4) for x in race_rows)
    cols = {
        'vprRankInRace': ranks(vprs),
        'officialRatingRankInRace': ranks([x['officialRating'] or None for x in race_rows]),
        'weightRankInRace': ranks([x['weightLbs'] for x in race_rows]),
        'jockeyWinRate90DayRankInRace': ranks(jr),
        'trainer14DayWinRateRankInRace': ranks(tr),
    }
    for i, x in enumerate(race_rows):
        for f, col in cols.items():
            x[f] = col[i]
        x['vprGapToBest'] = best - vprs[i] if vprs[i] is not None else None
        # a tolerated half in an input of the ranking: the rank may follow the other reading; the comparison
        # then checks the export's rank against the export's own values (second stage) instead
        if vpr_half:
            x['_tol'].update(('vprRankInRace', 'vprGapToBest'))
        if jr_half:
            x['_tol'].add('jockeyWinRate90DayRankInRace')
        if tr_half:
            x['_tol'].add('trainer14DayWinRateRankInRace')

