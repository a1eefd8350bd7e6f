#!/usr/bin/env python3
"""Independent re-implementation of the analytics row from the LSR results CSVs, compared with the
service's export (`racing export analytics` NDJSON), field by field and runner by runner.

    python3 scripts/verify/lsr_features.py --data ../shared/data/lsr-racingdata --export /tmp/verify-export.ndjson
        [--examples 5] [--opt NAME=VALUE] [--explain 'COURSEID|OFF|HORSEID'] [--probe] [--dump FILE] [--rows-only]

Standard library only: lsr_source.py reads the files as the importer does (docs/importer.md),
lsr_confirmed.py computes the 45 fields of features.md, lsr_catalogue.py the 162 of catalogue.md.
Nothing here imports or reads the service's feature code; ids are recomputed from domain/ids.ts's
documented algorithm (SHA-256 of the source key, first 80 bits, Crockford base32 lower case).

Exit status 0 only when every runner of the files has exactly one export row and the reverse, the
export is not empty, and every compared field agrees (a float may differ by one unit in its last kept
place only where the exact value, or a rounded input of it, sits on a half: features.md's rounding note).
Anything else exits 1, so an empty or truncated export cannot pass. See docs/verification.md.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from fractions import Fraction as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lsr_catalogue import CAT_OPTS, CATALOGUE, add_catalogue, ranks  # noqa: E402
from lsr_confirmed import DEFAULT_OPTS, compute  # noqa: E402
from lsr_source import bucket, iso, load, make_id, scaled_round  # noqa: E402

# ------------------------------------------------------------------------------------------- fields
RATE4 = ['courseForm', 'winRatioLast5', 'vprConfidence', 'jockeyWinRate90Day', 'trainer14DayWinRate',
         'sireProgenyWinRate', 'drawBiasStrength']
CONFIRMED = ['position', 'status', 'computedAtUtc', 'offTime', 'courseId', 'jockeyId', 'trainerId', 'sireId', 'draw',
             'weightLbs', 'officialRating', 'fieldSize', 'distanceYards', 'raceClass', 'disciplineCode', 'surfaceCode',
             'goingCode', 'distanceBucketCode', 'careerRuns', 'careerWins', 'courseForm', 'courseFormRuns',
             'winRatioLast5', 'vpr', 'vprConfidence', 'improvingVpr', 'jockeyWinRate90Day', 'jockeyRides90Day',
             'trainer14DayWinRate', 'trainerRunners14Day', 'stableForm', 'sireProgenyWinRate', 'sireProgenyRuns',
             'drawBiasStrength', 'drawBiasRaces', 'distanceDifferenceY', 'ratingDifference', 'weightDifferenceLbs',
             'classDifference', 'lastRunDays', 'courseTotalClimbM', 'courseUndulationIndex', 'courseElevationRangeM']
# our extensions beside features.md's fields (docs/features.md), recomputed with the catalogue's snapshots
EXTENSIONS = ['snapshotPeriod']
KIND = {f: ('dp4' if f in RATE4 else 'dp1' if f == 'vpr' else 'exact') for f in CONFIRMED + EXTENSIONS}
KIND.update({f: (k if k.startswith('dp') else 'exact') for f, k in CATALOGUE})
FIELDS = CONFIRMED + EXTENSIONS + [f for f, _ in CATALOGUE]
PLACES = {f: int(k[2:]) for f, k in KIND.items() if k.startswith('dp')}
INDEX = {f: i for i, f in enumerate(FIELDS)}
RANKS = ['vprRankInRace', 'officialRatingRankInRace', 'weightRankInRace', 'jockeyWinRate90DayRankInRace',
         'trainer14DayWinRateRankInRace']
# what a second-stage rank is computed from, in the export's own row: (value field, places, has-a-value test)
RANK_INPUT = {
    'vprRankInRace': ('vpr', lambda e: e['vprConfidence'] > 0),
    'officialRatingRankInRace': ('officialRating', lambda e: e['officialRating'] > 0),
    'weightRankInRace': ('weightLbs', lambda e: True),
    'jockeyWinRate90DayRankInRace': ('jockeyWinRate90Day', lambda e: e['jockeyRides90Day'] > 0),
    'trainer14DayWinRateRankInRace': ('trainer14DayWinRate', lambda e: e['trainerRunners14Day'] > 0),
}
RANK_FIELDS_NEEDED = sorted({'vpr', 'vprConfidence', 'officialRating', 'weightLbs', 'jockeyWinRate90Day',
                             'jockeyRides90Day', 'trainer14DayWinRate', 'trainerRunners14Day', *RANKS})


class Mine:
    """One runner's recomputed row, compacted: values in FIELDS order (numbers as integers of their last
    kept place), the indices of fields where a one-unit difference is tolerated, and the source run."""
    __slots__ = ('vals', 'tol', 'run', 'last', 'seen')

    def __init__(self, row):
        vals, tol = [], set(row.get('_tol', ()))
        if row['_vpr_half']:
            tol.update(('vpr', 'improvingVpr'))
        for f in FIELDS:
            v = row[f]
            if f in PLACES and v is not None:
                v, half = scaled_round(v, PLACES[f])
                if half:
                    tol.add(f)
            vals.append(v)
        self.vals = tuple(vals)
        self.tol = frozenset(INDEX[f] for f in tol if f in INDEX)
        self.run = row['_run']
        self.last = row['_last']
        self.seen = False

    def shown(self, i: int):
        v, f = self.vals[i], FIELDS[i]
        return v / 10 ** PLACES[f] if f in PLACES and v is not None else v


def compute_all(races, opts):
    rows = compute(races, opts)
    out = {}

    def finish(key, row):
        out[key] = Mine(row)
        row.clear()  # keep only the compact form: 126,771 full rows of exact rationals would take gigabytes

    add_catalogue(races, rows, opts, finish)
    return out


POW10 = {p: 10 ** p for p in (1, 2, 4)}


def scaled(b, places: int):
    """An exported number as an integer of its last kept place; None when it is not a number rounded there
    (the double nearest a decimal with `places` places, as JSON writes it, or an integer)."""
    t = type(b)
    if t is int:
        return b * POW10[places]
    if t is float:
        u = round(b * POW10[places])
        return u if u / POW10[places] == b else None
    return None


# ------------------------------------------------------------------------------------------ compare
ABSENT = object()
# (index, field, places or 0, 'rank' | 'derived' | '') for the comparison loop
SPEC = [(i, f, PLACES.get(f, 0), 'rank' if f in RANKS else 'derived' if f == 'improvingVpr' else '')
        for i, f in enumerate(FIELDS)]


def compare(mine, export_path, n_examples):
    r = collections.namedtuple('Comparison', 'rows_read seen bad_json dup extra not_exported mism halves absent '
                                             'examples export_fields rank_checked')
    mism, halves, absent = collections.Counter(), collections.Counter(), collections.Counter()
    examples = collections.defaultdict(list)
    seen, extra = set(), []
    rows_read = bad_json = dup = 0
    export_fields = set()
    race_rows = collections.defaultdict(dict)  # raceId -> horseId -> the export's ranking inputs and ranks
    pending = []  # (key, field index) rank mismatches on a tolerated half: decided by the second stage
    with open(export_path) as fh:
        for line in fh:
            if not line.strip():
                continue
            rows_read += 1
            try:
                e = json.loads(line)
                key = (e['raceId'], e['horseId'])
            except (ValueError, KeyError, TypeError):
                bad_json += 1
                continue
            if key in seen:
                dup += 1
                continue
            seen.add(key)
            export_fields.update(e)
            m = mine.get(key)
            if m is None:
                extra.append(key)
                continue
            m.seen = True
            if all(f in e for f in RANK_FIELDS_NEEDED):
                race_rows[key[0]][key[1]] = {f: e[f] for f in RANK_FIELDS_NEEDED}
            vals, tol = m.vals, m.tol
            for i, f, places, kind in SPEC:
                b = e.get(f, ABSENT)
                a = vals[i]
                if places:
                    if b is None or a is None:
                        if a is None and b is None:
                            continue
                    elif b is not ABSENT:
                        ub = scaled(b, places)
                        if ub == a:
                            continue
                        if ub is not None and (ub - a == 1 or a - ub == 1) and i in tol:
                            halves[f] += 1
                            continue
                elif a == b and type(a) is type(b):
                    continue
                elif a is None and b is None:
                    continue
                elif b is not ABSENT and i in tol and kind:
                    if kind == 'rank':
                        pending.append((key, i, b))
                    else:
                        halves[f] += 1  # improvingVpr beside a tolerated vpr half
                    continue
                mism[f] += 1
                if b is ABSENT:
                    absent[f] += 1
                if len(examples[f]) < n_examples:
                    examples[f].append((key, m.shown(i), '<absent>' if b is ABSENT else b, m))
    # second stage: where an input of a ranking sits on a tolerated half, the export's rank must be the
    # rank of the export's own values in that race
    for key, i, b in pending:
        f = FIELDS[i]
        src, has = RANK_INPUT[f]
        race = race_rows.get(key[0], {})
        horses = list(race)
        vals = [F(repr(race[h][src])) if has(race[h]) else None for h in horses]
        if key[1] in race and ranks(vals)[horses.index(key[1])] == b:
            halves[f] += 1
        else:
            mism[f] += 1
            if len(examples[f]) < n_examples:
                examples[f].append((key, mine[key].shown(i), b, mine[key]))
    # every rank in the export must also be the rank of the export's own values (whatever mine says)
    rank_checked = 0
    runners = collections.Counter(k[0] for k in mine)
    for race_id, race in race_rows.items():
        horses = list(race)
        if len(horses) != runners[race_id]:
            continue  # a race with a missing row: its ranks cannot be re-derived (the missing row fails anyway)
        for f in RANKS:
            src, has = RANK_INPUT[f]
            vals = [F(repr(race[h][src])) if has(race[h]) else None for h in horses]
            for h, rk in zip(horses, ranks(vals)):
                rank_checked += 1
                if race[h][f] != rk:
                    mism[f + ' (second stage)'] += 1
    not_exported = [k for k, v in mine.items() if not v.seen]
    return r(rows_read, len(seen), bad_json, dup, extra, not_exported, mism, halves, absent, examples,
             export_fields, rank_checked)


def describe(m: Mine) -> str:
    r = m.run
    race = r.race
    s = (f'race lsr:race:{race.course}:{race.off_raw} (off {iso(race.off)}, {race.disc}/{race.surf}/{bucket(race.yards)}, '
         f'{race.yards}y, class {race.cls}) horse {r.horse} jockey {r.jockey} trainer {r.trainer} sire {r.sire} '
         f'draw {r.draw} [{r.line}]')
    p = m.last
    if p is not None:
        s += (f'; last run lsr:race:{p.race.course}:{p.race.off_raw} off {iso(p.race.off)} {p.race.yards}y '
              f'class {p.race.cls} weight {p.weight} OR {p.rating} pos {p.pos}')
    return s


def explain(races, mine, export_path, course, off, horse):
    rid = make_id('race', f'lsr:race:{course}:{off}')
    hid = make_id('horse', f'lsr:horse:{horse}')
    m = mine[(rid, hid)]
    e = None
    if os.path.exists(export_path):
        with open(export_path) as fh:
            for line in fh:
                if rid in line and hid in line:
                    e = json.loads(line)
    print(f'\n== explain {course}|{off}|{horse} ({rid} {hid})\n  {describe(m)}')
    for i, f in enumerate(FIELDS):
        a = m.shown(i)
        b = e.get(f, '<absent>') if e else None
        print(f"  {f:32} mine {a!r:28} export {b!r}{'   <-- differs' if a != b else ''}")
    T = m.run.race.off
    runs = sorted((q for rc in races for q in rc.runners if q.horse == horse and q.race.off < T),
                  key=lambda q: -q.race.off)
    print('  history (newest first; visible iff off + 15 min < this off):')
    for q in runs:
        rc = q.race
        lpl = min(max(F(3300, rc.yards), F(1, 2)), F(3))
        raw = rc.standard - min(q.obd, F(30)) * lpl + (q.weight - 140) * F(1, 2) if q.pos >= 1 else None
        print(f'    lsr:race:{rc.course}:{rc.off_raw} off {iso(rc.off)} pos {q.pos}/{len(rc.runners)} {q.status} '
              f'obd {q.obd} {rc.yards}y class {rc.cls} going {rc.going!r} weight {q.weight} OR {q.rating} '
              f'SP {q.sp} fav {q.fav} headgear {q.headgear!r} jockey {q.jockey} trainer {q.trainer} owner {q.owner} '
              f'figure {q.fig} (raw {raw}) [{q.line}]')


PROBES = [
    ('draw_thirds', 'any'), ('period_tz', 'uk'), ('in_force', 'after'), ('rank_ties', 'high'), ('rank_ties', 'mean'),
    ('third_basis', 'rank-ceil'), ('third_basis', 'stall'),
    ('dead_heat', 'full'), ('snap_vis', 'off'), ('dbs_round', 'rates-first'), ('vpr_window', 'runs'),
    ('window', 'ukcal'), ('lastrun_dates', 'uk'), ('improving_exact', False),
    ('card_draw_ties', 'low'), ('card_draw_ties', 'mean'), ('implied_last3', 'last3'), ('prb_sole_nonfinisher', 1),
    ('figures_last3', 'runs'), ('shrunk_unknown_sire', F(1, 10)), ('rank_basis', 'exact'), ('beaten_lengths_dp', 2),
]


def probe(races, base, export_path):
    exp = {}
    with open(export_path) as fh:
        for line in fh:
            if line.strip():
                e = json.loads(line)
                exp[(e['raceId'], e['horseId'])] = e
    print('\n== ambiguity probe: rows whose value changes under the alternative reading '
          '(and of those, how many the export matches under that reading)')
    for k, v in PROBES:
        alt = compute_all(races, {k: v})
        changed, agree_alt = collections.Counter(), collections.Counter()
        for key, m in alt.items():
            b = base[key]
            for i, f in enumerate(FIELDS):
                if m.vals[i] != b.vals[i]:
                    changed[f] += 1
                    e = exp.get(key)
                    if e is not None and f in e:
                        ev = scaled(e[f], PLACES[f]) if f in PLACES and e[f] is not None else e[f]
                        if ev == m.vals[i]:
                            agree_alt[f] += 1
        desc = ', '.join(f'{f} {n} (export agrees with alternative: {agree_alt[f]})' for f, n in changed.items())
        print(f'  {k}={v}: {desc or "no row changes"}')


def fail(msg: str) -> int:
    print(f'FAIL: {msg}')
    return 1


def rows_only(races, export_path) -> int:
    """Only the row sets: every runner of the files has one export row and the reverse (no feature compute)."""
    mine = {(make_id('race', f'lsr:race:{race.course}:{race.off_raw}'), make_id('horse', f'lsr:horse:{r.horse}'))
            for race in races for r in race.runners}
    seen, dup, bad = set(), 0, 0
    with open(export_path) as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                e = json.loads(line)
                key = (e['raceId'], e['horseId'])
            except (ValueError, KeyError, TypeError):
                bad += 1
                continue
            dup += key in seen
            seen.add(key)
    extra, missing = len(seen - mine), len(mine - seen)
    print(f'rows only: runners in the files {len(mine)}, export rows {len(seen)}; runners absent from the export: '
          f'{missing}; export rows without a runner in the files: {extra}; duplicate export rows: {dup}; '
          f'unreadable lines: {bad}')
    problems = [p for p, n in (('export is empty', not seen), (f'{missing} runner(s) absent from the export', missing),
                                (f'{extra} export row(s) without a runner in the files', extra),
                                (f'{dup} duplicate export row(s)', dup), (f'{bad} unreadable export line(s)', bad)) if n]
    for p in problems:
        fail(p)
    return 1 if problems else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--data', default=os.path.normpath(os.path.join(here, '../../../shared/data/lsr-racingdata')))
    ap.add_argument('--export', default='/tmp/verify-export.ndjson')
    ap.add_argument('--examples', type=int, default=5)
    ap.add_argument('--opt', action='append', default=[], metavar='NAME=VALUE',
                    help='switch one reading of an ambiguity (DEFAULT_OPTS, CAT_OPTS), e.g. draw_thirds=any')
    ap.add_argument('--explain', action='append', default=[], metavar='COURSEID|OFF|HORSEID',
                    help='print one runner: my row, the export row, and its history')
    ap.add_argument('--probe', action='store_true',
                    help='for every alternative reading in PROBES: how many rows it changes, and how many of '
                         'those the export matches')
    ap.add_argument('--dump', help='write my rows as NDJSON here (the export format)')
    ap.add_argument('--rows-only', action='store_true',
                    help='compare only the sets of (raceId, horseId) rows, without computing any field (fast)')
    args = ap.parse_args()

    t0 = time.time()
    races, rows, dups, paths = load(args.data)
    nruns = sum(len(r.runners) for r in races)
    print(f'files {len(paths)}, rows {rows}, duplicates dropped {dups}, races {len(races)}, runners {nruns} '
          f'(load {time.time() - t0:.1f}s)')
    if nruns == 0:
        return fail(f'no runner rows under {args.data}: nothing to verify')
    if not args.dump and not os.path.exists(args.export):
        return fail(f'no export at {args.export}')
    if args.rows_only:
        return rows_only(races, args.export)
    opts = {}
    defaults = {**DEFAULT_OPTS, **CAT_OPTS}
    for o in args.opt:
        k, v = o.split('=', 1)
        if k not in defaults:
            ap.error(f'unknown option {k}')
        d = defaults[k]
        opts[k] = (v == 'true') if isinstance(d, bool) else F(v) if isinstance(d, (int, F)) else v
    t1 = time.time()
    mine = compute_all(races, opts)
    print(f'computed {len(mine)} rows x {len(FIELDS)} fields ({len(CONFIRMED)} confirmed, {len(EXTENSIONS)} extension, '
          f'{len(CATALOGUE)} catalogue) '
          f'({time.time() - t1:.1f}s)')
    if args.dump:
        with open(args.dump, 'w') as fh:
            for (rid, hid), m in mine.items():
                o = {f: m.shown(i) for i, f in enumerate(FIELDS)}
                o.update(raceId=rid, horseId=hid)
                fh.write(json.dumps(o, sort_keys=True) + '\n')
        print(f'wrote {len(mine)} rows to {args.dump}')
        if not os.path.exists(args.export):
            return 0
    c = compare(mine, args.export, args.examples)
    print(f'export rows read {c.rows_read}; compared {c.seen - len(c.extra)} runners x {len(FIELDS)} fields = '
          f'{(c.seen - len(c.extra)) * len(FIELDS)} values; second-stage rank checks {c.rank_checked}')
    print(f'runners in the files absent from the export: {len(c.not_exported)}; export rows without a runner in the '
          f'files: {len(c.extra)}; duplicate export rows: {c.dup}; unreadable export lines: {c.bad_json}')
    print(f"\n{'field':32} {'mismatches':>10} {'half-ulp':>9} {'absent':>7}")
    for f in FIELDS + sorted(k for k in c.mism if k not in INDEX):
        print(f'{f:32} {c.mism[f]:>10} {c.halves[f]:>9} {c.absent[f]:>7}')
    not_compared = sorted(c.export_fields - set(FIELDS) - {'raceId', 'horseId'})
    if not_compared:
        print(f'\nexport fields this check does not compare: {", ".join(not_compared)}')
    for f in FIELDS:
        if not c.examples[f]:
            continue
        print(f'\n== {f}: {c.mism[f]} mismatches ({c.absent[f]} rows without the field)')
        for key, a, b, m in c.examples[f]:
            print(f'  mine {a!r} export {b!r} :: {describe(m)}')
    for x in args.explain:
        explain(races, mine, args.export, *x.split('|'))
    if args.probe:
        probe(races, mine, args.export)
    print(f'\ntotal time {time.time() - t0:.1f}s')
    failed = [f'{n} field value(s) differ ({sum(1 for f in c.mism if c.mism[f])} field(s))'
              for n in [sum(c.mism.values())] if n]
    if c.rows_read == 0:
        failed.append('the export is empty')
    if c.not_exported:
        failed.append(f'{len(c.not_exported)} runner(s) of the files absent from the export')
    if c.extra:
        failed.append(f'{len(c.extra)} export row(s) without a runner in the files')
    if c.dup:
        failed.append(f'{c.dup} duplicate export row(s)')
    if c.bad_json:
        failed.append(f'{c.bad_json} unreadable export line(s)')
    for x in failed:
        fail(x)
    if not failed:
        print(f'PASS: {c.seen} runners, {len(FIELDS)} fields, every value equal (or a tolerated half)')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
