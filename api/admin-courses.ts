/**
 * Operator route for course topology, under /admin/v1 on the loopback admin listener (X-Admin-Token):
 *
 *   POST /admin/v1/courses/{courseId}/topology {topology} -> 201 the Course version published
 *
 * `racing topology build --course ID` measures on the operator's machine and, in embedded mode while the
 * service runs (it holds the store the embedded log lives in), publishes through this route: the
 * service publishes the course's latest version with `topology` replaced and publishedAt = now to
 * racing.courses.v1. 404 for a course with no version, 400 for a block the Course schema or
 * validateCourse refuses.
 */
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Course, CourseTopology } from '../domain/avro-types.generated.js';
import { adminTokenHook } from './auth.js';
import { avroToJsonSchema, loadAvroSchema } from './avro-json-schema.js';
import { COURSE_ID_PATTERN } from './course-schemas.js';

const named = new Map<string, TSchema>();
/** The Course record as JSON (schemas/Course.avsc). */
export const CourseRecordSchema = avroToJsonSchema(loadAvroSchema('Course'), named);
/** Its topology block (CourseTopology), every field required. */
const CourseTopologyRecordSchema = named.get('CourseTopology')!;

export interface AdminCourseDeps {
  token: string;
  /** Publishes the course's latest version with this topology (streams/course-versions.ts). */
  publishTopology(courseId: string, topology: CourseTopology): Promise<{ version: Course; laterVersions: number }>;
}

export function adminCourseRoutes(deps: AdminCourseDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', adminTokenHook(deps.token));

    app.post<{ Params: { courseId: string }; Body: { topology: CourseTopology } }>(
      '/courses/:courseId/topology',
      {
        config: { access: 'admin' },
        schema: {
          summary: 'Publish a new version of a course with a measured topology block (racing topology build)',
          tags: ['admin'],
          params: Type.Object({ courseId: Type.String({ pattern: COURSE_ID_PATTERN }) }),
          body: Type.Object({ topology: CourseTopologyRecordSchema }, { additionalProperties: false }),
          response: {
            201: Type.Object(
              { version: CourseRecordSchema, laterVersions: Type.Integer() },
              { additionalProperties: false },
            ),
          },
        },
      },
      async (request, reply) => {
        const published = await deps.publishTopology(request.params.courseId, request.body.topology);
        request.log.info(
          { courseId: request.params.courseId, publishedAt: published.version.publishedAt },
          'course topology published',
        );
        return reply.code(201).send(published);
      },
    );
  };
}
