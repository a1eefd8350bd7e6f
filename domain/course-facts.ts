/**
 * Layout facts of the generator's courses (courses.md "Layout", docs/courses.md): shape, circuit and
 * run-in lengths, the operator, the start positions of a few well-known straight-course distances, and
 * which courses share a venue. Public knowledge, rounded: lengths are the figures course guides quote
 * (to the furlong, or the published metres for international tracks converted to yards); a figure not
 * known well enough is null and an operator not known is ''. docs/generator.md "Course facts" says
 * where they come from and which conventions apply.
 */

/** The course record's shape table (schemas/Course.avsc `shape`). */
export const TRACK_SHAPES = [
  'oval',
  'triangle',
  'horseshoe',
  'pear',
  'undulating-circuit',
  'figure-of-eight',
  'straight',
] as const;
export type TrackShape = (typeof TRACK_SHAPES)[number];

export interface StartPositionFact {
  readonly distanceYards: number;
  readonly description: string;
}

export interface CourseFacts {
  readonly shape: TrackShape;
  /** one circuit (the whole round course for a horseshoe), yards; null unknown or straight only */
  readonly circuitLengthYards: number | null;
  /** the home straight (run-in) of the round course, or the straight course of a straight-only track */
  readonly straightLengthYards: number | null;
  /** the present-day racecourse group; '' unknown */
  readonly operator: string;
  readonly startPositions: readonly StartPositionFact[];
}

export const JCR = 'Jockey Club Racecourses';
export const ARC = 'Arena Racing Company';
export const IND = 'independent';
const CHESTER = 'Chester Race Company';
const HRI = 'Horse Racing Ireland';
const FG = 'France Galop';
const HKJC = 'The Hong Kong Jockey Club';

const F = 220; // yards in a furlong
const M = (metres: number) => Math.round(metres / 0.9144);
const straightCourse = (distanceYards: number, description: string): StartPositionFact => ({
  distanceYards,
  description,
});

function f(
  shape: TrackShape,
  circuitLengthYards: number | null,
  straightLengthYards: number | null,
  operator: string,
  startPositions: readonly StartPositionFact[] = [],
): CourseFacts {
  return { shape, circuitLengthYards, straightLengthYards, operator, startPositions };
}

const MILE = straightCourse(8 * F, 'straight mile');
const SIX = straightCourse(6 * F, 'straight six furlongs');
const FIVE = straightCourse(5 * F, 'straight five furlongs');

/** By course code (domain/courses.ts); every course has an entry (checked when the table loads). */
export const COURSE_FACTS: Readonly<Record<string, CourseFacts>> = {
  // Great Britain. Aintree: the Grand National course and its 494-yard run-in.
  aintree: f('triangle', 18 * F, 494, JCR),
  ascot: f('triangle', 14 * F, 2.5 * F, IND, [straightCourse(8 * F, 'straight mile (Queen Anne, Royal Hunt Cup)')]),
  ayr: f('oval', 12 * F, 4 * F, IND, [SIX]),
  'bangor-on-dee': f('oval', 12 * F, null, CHESTER),
  bath: f('oval', 12 * F, 4 * F, ARC),
  beverley: f('oval', 11 * F, 2.5 * F, IND),
  brighton: f('horseshoe', 12 * F, 3.5 * F, ARC),
  carlisle: f('pear', 13 * F, null, JCR),
  // Cartmel: the half-mile run-in, the longest in British jump racing, cuts across the middle of the course.
  cartmel: f('oval', 8 * F, 4 * F, IND),
  catterick: f('oval', null, null, IND),
  'chelmsford-city-aw': f('oval', 8 * F, null, IND),
  cheltenham: f('undulating-circuit', 12 * F, null, JCR),
  chepstow: f('undulating-circuit', 16 * F, null, ARC, [MILE]),
  chester: f('oval', 8 * F + 73, null, CHESTER),
  doncaster: f('pear', 16 * F, 4.5 * F, ARC, [straightCourse(8 * F, 'straight mile (the Lincoln)')]),
  epsom: f('horseshoe', 12 * F, 3.5 * F, JCR, [
    straightCourse(5 * F, 'straight five furlongs, downhill most of the way'),
    straightCourse(12 * F, 'the Derby start, on the far side of the Downs'),
  ]),
  exeter: f('oval', 16 * F, null, JCR),
  fakenham: f('oval', 8 * F, null, IND),
  'ffos-las': f('oval', 12 * F, null, ARC),
  fontwell: f('figure-of-eight', null, null, ARC),
  goodwood: f('undulating-circuit', null, null, IND, [straightCourse(6 * F, 'straight six furlongs (Stewards Cup)')]),
  hamilton: f('pear', null, null, IND, [SIX]),
  haydock: f('oval', 13 * F, null, JCR),
  hereford: f('oval', 12 * F, null, ARC),
  hexham: f('undulating-circuit', null, null, IND),
  huntingdon: f('oval', null, null, JCR),
  kelso: f('oval', null, null, IND),
  kempton: f('triangle', 13 * F, null, JCR),
  'kempton-aw': f('oval', null, null, JCR),
  leicester: f('oval', null, null, IND),
  lingfield: f('triangle', null, null, ARC),
  'lingfield-aw': f('oval', 10 * F, null, ARC),
  ludlow: f('oval', null, null, IND),
  'market-rasen': f('oval', null, null, JCR),
  musselburgh: f('oval', 10 * F, null, IND, [FIVE]),
  newbury: f('oval', 15 * F, null, IND, [MILE]),
  newcastle: f('pear', 14 * F, null, ARC),
  'newcastle-aw': f('oval', null, null, ARC, [straightCourse(8 * F, 'straight mile (Tapeta)')]),
  newmarket: f('straight', null, 10 * F, JCR, [
    straightCourse(8 * F, 'the Rowley Mile (the Guineas)'),
    straightCourse(10 * F, 'Across the Flat, straight'),
  ]),
  'newmarket-july': f('straight', null, 8 * F, JCR, [straightCourse(8 * F, 'the Bunbury Mile, straight')]),
  'newton-abbot': f('oval', null, null, IND),
  nottingham: f('oval', null, null, JCR),
  perth: f('oval', null, null, IND),
  plumpton: f('undulating-circuit', null, null, IND),
  pontefract: f('undulating-circuit', 16 * F + 130, 2 * F, IND),
  redcar: f('oval', null, null, IND, [MILE]),
  ripon: f('oval', null, null, IND, [SIX]),
  salisbury: f('pear', null, null, IND, [MILE]),
  sandown: f('oval', 13 * F, 4 * F, JCR, [straightCourse(5 * F, 'separate straight five furlongs')]),
  sedgefield: f('undulating-circuit', null, null, ARC),
  southwell: f('oval', null, null, ARC),
  'southwell-aw': f('oval', 10 * F, null, ARC, [FIVE]),
  stratford: f('triangle', null, null, IND),
  taunton: f('oval', null, null, IND),
  thirsk: f('oval', null, null, IND, [SIX]),
  uttoxeter: f('oval', null, null, ARC),
  warwick: f('undulating-circuit', null, null, JCR),
  wetherby: f('oval', null, null, IND),
  wincanton: f('oval', null, null, JCR),
  windsor: f('figure-of-eight', null, null, ARC),
  'wolverhampton-aw': f('oval', 8 * F, null, ARC),
  worcester: f('oval', null, null, ARC),
  yarmouth: f('oval', null, null, ARC, [MILE]),
  york: f('horseshoe', 16 * F, 5 * F, IND, [SIX]),
  folkestone: f('oval', null, null, ARC),
  'great-leighs-aw': f('oval', null, null, IND),
  towcester: f('oval', null, null, IND),
  wolverhampton: f('pear', null, null, ''),
  // Ireland.
  ballinrobe: f('oval', null, null, ''),
  bellewstown: f('undulating-circuit', null, null, ''),
  clonmel: f('oval', null, null, ''),
  cork: f('oval', null, null, ''),
  curragh: f('horseshoe', null, null, '', [straightCourse(8 * F, 'straight mile (the Irish Guineas)')]),
  'down-royal': f('oval', null, null, ''),
  downpatrick: f('undulating-circuit', null, null, ''),
  dundalk: f('oval', null, null, ''),
  'dundalk-aw': f('oval', null, null, ''),
  fairyhouse: f('oval', null, null, HRI),
  galway: f('undulating-circuit', null, null, ''),
  'gowran-park': f('undulating-circuit', null, null, ''),
  kilbeggan: f('undulating-circuit', null, null, ''),
  killarney: f('oval', null, null, ''),
  laytown: f('straight', null, null, ''),
  leopardstown: f('oval', null, null, HRI),
  limerick: f('oval', null, null, ''),
  listowel: f('oval', null, null, ''),
  naas: f('oval', null, null, ''),
  navan: f('undulating-circuit', null, null, HRI),
  punchestown: f('undulating-circuit', null, null, ''),
  roscommon: f('oval', null, null, ''),
  sligo: f('oval', null, null, ''),
  thurles: f('undulating-circuit', null, null, ''),
  tipperary: f('oval', null, null, HRI),
  tramore: f('undulating-circuit', null, null, ''),
  wexford: f('oval', null, null, ''),
  // International: the turf course's published circumference and home straight, in metres.
  longchamp: f('pear', M(2750), M(533), FG),
  chantilly: f('oval', null, null, FG),
  deauville: f('oval', null, null, FG, [straightCourse(M(1600), 'straight 1,600 m')]),
  'saint-cloud': f('triangle', null, null, FG),
  auteuil: f('oval', null, null, FG),
  'nad-al-sheba': f('oval', null, null, ''),
  meydan: f('oval', M(2400), null, ''),
  'belmont-park': f('oval', null, null, 'New York Racing Association'),
  'santa-anita': f('oval', null, null, ''),
  flemington: f('pear', M(2312), M(450), 'Victoria Racing Club', [
    straightCourse(M(1200), 'the straight six (1,200 m)'),
  ]),
  randwick: f('oval', M(2224), M(410), 'Australian Turf Club'),
  'sha-tin': f('oval', M(1900), M(430), HKJC, [straightCourse(M(1000), 'straight 1,000 m')]),
  'happy-valley': f('oval', M(1450), M(310), HKJC),
  tokyo: f('oval', M(2083), M(526), 'Japan Racing Association'),
};

/**
 * Courses that share a venue (courses.md `siblingCourseIds`): a turf course and its AW track,
 * Newmarket's two courses, and Great Leighs, which reopened on the same site as Chelmsford City.
 */
export const VENUES: readonly (readonly string[])[] = [
  ['kempton', 'kempton-aw'],
  ['lingfield', 'lingfield-aw'],
  ['newcastle', 'newcastle-aw'],
  ['southwell', 'southwell-aw'],
  ['wolverhampton', 'wolverhampton-aw'],
  ['newmarket', 'newmarket-july'],
  ['great-leighs-aw', 'chelmsford-city-aw'],
  ['dundalk', 'dundalk-aw'],
];

/** Codes of the other courses at the venue of `code` (empty when it is alone). */
export function siblingCodes(code: string): readonly string[] {
  return VENUES.find((v) => v.includes(code))?.filter((x) => x !== code) ?? [];
}
