"""The LSR results files as the importer reads them (docs/importer.md, domain/importer/): ids, the UK
clock, exact rounding, the field mappings, and `load()`, which turns the CSVs into races and runs.

Standard library only. Written from docs/importer.md, the importer's mapping functions (the import
rules, not the service's feature code) and ../shared/data/lsr-racingdata/SOURCE.md.
"""
from __future__ import annotations

import csv
import datetime as dt
import glob
import hashlib
import html
import os
import re
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


def uk_clock_minus_days(utc_ms: int, days: int) -> int:
    """The UTC instant of the same UK clock time `days` calendar days earlier."""
    s, e = bst_window(utc_date(utc_ms).year)
    local = EPOCH + dt.timedelta(milliseconds=utc_ms + (HOUR if s <= utc_ms < e else 0))
    return uk_local_to_utc_ms((local - dt.timedelta(days=days)).strftime('%m/%d/%Y %H:%M:%S'))


def uk_date(utc_ms: int) -> dt.date:
    s, e = bst_window(utc_date(utc_ms).year)
    return utc_date(utc_ms + (HOUR if s <= utc_ms < e else 0))


# ----------------------------------------------------------------------------------------- rounding
def round_half_away(x: F, places: int) -> F:
    q = x * (10 ** places)
    n = (abs(q.numerator) * 2 + q.denominator) // (2 * q.denominator)  # floor(|q| + 1/2)
    return F(n if q >= 0 else -n, 10 ** places)


def is_half(x: F, places: int) -> bool:
    """True when x sits exactly on a rounding half at `places` (where float implementations may differ)."""
    q = x * (10 ** places) * 2
    return q.denominator == 1 and q.numerator % 2 == 1


def near_half(x, places: int) -> bool:
    """x (Fraction, int or float) is on, or within float noise of, a rounding half at `places`."""
    return scaled_round(x, places)[1]


def scaled_round(x, places: int) -> tuple[int, bool]:
    """(x rounded half away from zero, as an integer of units of 10^-places; whether x is on a half or
    within 1e-9 of a unit of one). Integer arithmetic only: this runs for every number of every row."""
    if isinstance(x, float):
        x = F(x)
    if isinstance(x, int):
        return x * 10 ** places, False
    n, d = x.numerator * 10 ** places, x.denominator
    a = abs(n)
    r = (2 * a + d) // (2 * d)
    frac = a % d
    return (r if n >= 0 else -r), 2 * frac == d or abs(frac / d - 0.5) < 1e-9


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
# catalogue.md "Going group": 1 firm, 2 good, 3 soft, 4 heavy, 5 AW standard or faster, 6 AW slow
GOING_GROUP = {g.lower(): grp for grp, names in {
    1: ['Hard', 'Firm', 'Good To Firm'], 2: ['Good', 'Good To Yielding'],
    3: ['Good To Soft', 'Yielding', 'Yielding To Soft', 'Soft'], 4: ['Soft To Heavy', 'Heavy'],
    5: ['Fast', 'Standard To Fast', 'Standard'], 6: ['Standard To Slow', 'Slow']}.items() for g in names}
CLASS_PAR = {1: 110, 2: 95, 3: 85, 4: 75, 5: 65, 6: 55, 7: 45}
PATTERN_CODE = {'': 0, 'none': 1, 'listed': 2, 'group3': 3, 'group2': 4, 'group1': 5}
SEX_CODE = {'': 0, 'c': 1, 'f': 2, 'g': 3, 'm': 4, 'h': 5, 'r': 6}
HEADGEAR_ORDER = 'bvhpte'


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


def pattern(text: str) -> str:
    """The importer's Pattern mapping (docs/importer.md): blank -> '' (unknown); `Listed` -> listed;
    `(Group N` / `(Grade N` (N = 1..3, also truncated) -> groupN; anything else (Grade A/B, a fragment
    such as ` Group 1)` cut from "(Local Group 1)") -> none."""
    if not text.strip():
        return ''
    t = text.rstrip()
    if re.fullmatch(r'\(?listed\)?', t.strip(), re.I):
        return 'listed'
    m = re.match(r'\((?:Group|Grade)\s*([123])\b', t, re.I | re.A)
    return f'group{m.group(1)}' if m else 'none'


def canonical_headgear(raw: str) -> str:
    """catalogue.md: codes b v h p t e in that order, `e/s` is e, the first-time digit dropped."""
    s = raw.lower().replace('e/s', 'e')
    return ''.join(c for c in HEADGEAR_ORDER if c in s)


def female_only(sex_restriction: str, race_name: str) -> bool:
    r = sex_restriction.strip()
    if r == 'Fillies':
        return True
    return r in ('', 'None') and re.search(r"\bmares'?(?=\s|$|\))", race_name, re.I | re.A) is not None


def sex(female: bool, age: int, gelding_first_time: str) -> str:
    """The importer's rule: a runner of a fillies' (and mares') race is f up to 3 years old, m from 4
    (unknown age: unknown); GeldingFirstTime True is a gelding; otherwise unknown."""
    if female:
        return '' if age == 0 else 'f' if age <= 3 else 'm'
    return 'g' if gelding_first_time.strip().lower() == 'true' else ''


def is_favourite(fractional_odds: str) -> bool:
    return re.search(r'[0-9a-z][FJC]$', fractional_odds.strip()) is not None


# --------------------------------------------------------------------------------------------- load
class Race:
    __slots__ = ('idx', 'course', 'off_raw', 'off', 'pub', 'name', 'disc', 'surf', 'yards', 'cls', 'going',
                 'runners', 'standard', 'key', 'handicap', 'pattern', 'ggroup', 'bucket', 'winners')


class Run:
    __slots__ = ('race', 'horse', 'jockey', 'trainer', 'sire', 'draw', 'weight', 'rating', 'pos', 'status',
                 'obd', 'fig', 'fig_half', 'line', 'age', 'sex', 'headgear', 'claim', 'owner', 'dam', 'dam_sire',
                 'sp', 'fav')


def data_files(data: str) -> list[str]:
    """`Results_*.csv` in the folder or one level below it, in file-name order (the importer's order)."""
    paths = glob.glob(os.path.join(data, '*', 'Results_*.csv')) + glob.glob(os.path.join(data, 'Results_*.csv'))
    return sorted(set(paths), key=os.path.basename)


def load(data_dir: str):
    paths = data_files(data_dir)
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
                    race.name = html.unescape(row['RaceName']).strip()
                    race.disc = discipline(row['RaceType'], race.name)
                    race.surf = surface(row['Surface'], html.unescape(row['CourseName']))
                    race.yards = int(row['DistanceInYards'])
                    c = row['Class'].strip()
                    race.cls = int(c.split()[1]) if c else 0
                    race.going = row['Going'].strip()
                    race.handicap = 'handicap' in race.name.lower()
                    race.pattern = pattern(row.get('Pattern') or '')
                    race.ggroup = GOING_GROUP.get(race.going.lower(), 0)
                    race.bucket = bucket(race.yards)
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
                r.age = int(row['Age']) if row['Age'].strip() else 0
                r.sex = sex(female_only(row.get('SexRestriction') or '', race.name), r.age,
                            row.get('GeldingFirstTime') or '')
                r.headgear = canonical_headgear(row.get('HeadGear') or '')
                claim = (row.get('JockeyAllowanceLbs') or '').strip()
                r.claim = int(claim) if claim else 0
                owner = (row.get('OwnerId') or '').strip()
                r.owner = owner if owner and owner.strip('0') else None
                dam = html.unescape(row.get('DamName') or '').strip()
                r.dam = dam or None
                r.dam_sire = None  # no dam-sire column in any file
                sp = row['DecimalOdds'].strip()
                r.sp = F(sp) if sp else None
                r.fav = is_favourite(row['FractionalOdds'])
                race.runners.append(r)
    # feed-independent order: by off, then source key
    ordered = sorted(races.values(), key=lambda x: (x.off, x.course, x.off_raw))
    for i, race in enumerate(ordered):
        race.idx = i
        race.key = (race.course, race.disc, race.bucket, race.surf)
        race.winners = sum(1 for r in race.runners if r.pos == 1)
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
