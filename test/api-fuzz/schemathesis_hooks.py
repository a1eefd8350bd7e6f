"""Schemathesis hooks for the API fuzz test (loaded through SCHEMATHESIS_HOOKS).

GET /api/v1/race-days and GET /api/v1/courses/{courseId}/analytics take two dates with a rule between
them that OpenAPI cannot state for separate query parameters: `to` on or after `from`, at most 366 days
apart (docs/api.md, docs/courses.md). A positive case whose
dates break that rule is not a valid request, so the service's 400 for it is right, not a failure.
This hook turns such positive cases into valid ones (same `from`, `to` moved into the window);
negative cases are left alone, so every check still sees every malformed request.
"""

from datetime import date, timedelta

import schemathesis
from schemathesis import GenerationMode

RACE_DAYS = "/api/v1/race-days"
COURSE_ANALYTICS = "/api/v1/courses/{courseId}/analytics"
RANGE_PATHS = (RACE_DAYS, COURSE_ANALYTICS)
MAX_SPAN_DAYS = 366


def _parse(value):
    try:
        return date.fromisoformat(value) if isinstance(value, str) and len(value) == 10 else None
    except ValueError:
        return None


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if context.operation is None or context.operation.path not in RANGE_PATHS or meta is None:
        return case
    if meta.generation.mode != GenerationMode.POSITIVE or not isinstance(case.query, dict):
        return case
    start, end = _parse(case.query.get("from")), _parse(case.query.get("to"))
    if start is None or end is None:
        return case
    span = abs((end - start).days) % MAX_SPAN_DAYS
    last = date(9999, 12, 31)
    fixed = start + timedelta(days=min(span, (last - start).days))
    case.query = {**case.query, "to": fixed.isoformat()}
    return case
