/**
 * Course versions on racing.courses.v1 for operators: the latest version of a course read straight from
 * the topic (no consumer group, so nothing is committed), and a new version with a measured topology
 * block published (`racing topology build --course`, the admin route POST /admin/v1/courses/{id}/topology).
 */
import type { Course, CourseTopology } from '../domain/avro-types.generated.js';
import { compareCourseVersions } from '../domain/course-profile.js';
import { RacingError } from '../domain/errors.js';
import { validateCourse } from '../domain/validate.js';
import type { Codecs } from './codecs.js';
import type { LogPort } from './log-port.js';
import { publishEvents } from './publisher.js';

export interface CourseTopic {
  log: LogPort;
  codecs: Codecs;
}

/** Every version of a course on the topic (after compaction: at least the latest), in version order. */
export async function courseVersions(p: CourseTopic, courseId: string): Promise<Course[]> {
  const topic = p.codecs.topics.courses;
  const [starts, ends] = await Promise.all([p.log.startOffsets(topic), p.log.endOffsets(topic)]);
  const versions: Course[] = [];
  for (let partition = 0; partition < ends.length; partition++) {
    let offset = starts[partition] ?? 0;
    while (offset < ends[partition]!) {
      const records = await p.log.read(topic, partition, offset, 1000);
      if (records.length === 0) break;
      for (const r of records) {
        if (r.key === courseId && r.value) versions.push(await p.codecs.serde.decode<Course>(topic, r.value));
      }
      offset = records.at(-1)!.offset + 1;
    }
  }
  return versions.sort(compareCourseVersions);
}

/** The latest version of a course (highest publishedAt; the engine's tie rule), or undefined. */
export async function latestCourseVersion(p: CourseTopic, courseId: string): Promise<Course | undefined> {
  return (await courseVersions(p, courseId)).at(-1);
}

export interface PublishedTopology {
  /** the version published */
  version: Course;
  /** versions published after `now` (they carry their own topology and will supersede this one) */
  laterVersions: number;
}

/**
 * Publishes a new version of a course: its latest version with `topology` in place of the old block and
 * `publishedAt` = now. The version is checked like every course version (validateCourse); not_found for
 * a course that has no version on the topic.
 */
export async function publishCourseTopology(
  p: CourseTopic,
  courseId: string,
  topology: CourseTopology,
  now: number,
): Promise<PublishedTopology> {
  const versions = await courseVersions(p, courseId);
  const latest = versions.at(-1);
  if (!latest) throw new RacingError('not_found', `no course ${courseId} on ${p.codecs.topics.courses}`);
  const version: Course = { ...latest, publishedAt: now, topology };
  const problems = validateCourse(version);
  if (problems.length > 0)
    throw new RacingError('validation_failed', `the new version of ${courseId} is not valid: ${problems.join('; ')}`);
  await publishEvents(p.log, p.codecs, [{ kind: 'course', value: version, publishedAt: now }]);
  return { version, laterVersions: versions.filter((v) => v.publishedAt > now).length };
}
