"""The 45 fields the row had before the catalogue (../shared/spec/features.md), computed from the
results files with exact rationals. This is the comparison that found 0 mismatches on 126,771 runners
(docs/verification.md); the catalogue's fields are in lsr_catalogue.py.
"""
from __future__ import annotations

import bisect
import collections
from fractions import Fraction as F

from lsr_source import (BUCKETS, DAY, DISCIPLINES, GOING_CODE, RESULT_DELAY, SURFACES, bucket, is_half, iso,
                        make_id, month_start_ms, rate, round_half_away, uk_clock_minus_days, uk_date,
                        uk_local_to_utc_ms, utc_date)


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


def draw_race_contrib(race, opts):
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
