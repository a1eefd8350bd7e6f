#!/usr/bin/env python3
"""Read racing.analytics.v1 as an outside consumer would: Python, confluent-kafka, a schema registry.

Every value on the topic is Avro in the Confluent wire format (magic byte 0, 4-byte big-endian schema
id, Avro body); the writer's schema is fetched from the registry by id (subject
`racing.analytics.v1-value`). Keys are plain UTF-8 `raceId:horseId`. A null value is a tombstone: the
runner was withdrawn and its row is gone.

Prints one JSON object per record on stdout, `{"key": "...", "value": {...}}` (value null for a
tombstone), and exits after --max records, at --timeout seconds, or (with --until-end) once every
partition has been read to its end. A one-line summary goes to stderr.

    python3 -m venv .venv && .venv/bin/pip install -r scripts/python-requirements.txt
    .venv/bin/python scripts/consume-analytics.py --brokers localhost:9092 \
        --registry http://localhost:8081 --from-beginning --until-end --timeout 60

Exit status: 0 on --max, --until-end or the timeout; 1 on a Kafka, registry or decoding error;
2 on bad arguments; 130 on Ctrl-C. See docs/consumers.md.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
import uuid
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

DEFAULT_TOPIC = "racing.analytics.v1"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="consume-analytics.py",
        description="Print the records of racing.analytics.v1 (Avro, Confluent wire format) as JSON lines.",
    )
    p.add_argument(
        "--brokers",
        default=os.environ.get("KAFKA_BROKERS", "localhost:9092"),
        help="bootstrap servers, host:port[,host:port] (default $KAFKA_BROKERS or localhost:9092)",
    )
    p.add_argument(
        "--registry",
        default=os.environ.get("SCHEMA_REGISTRY_URL", "http://localhost:8081"),
        help="schema registry URL (default $SCHEMA_REGISTRY_URL or http://localhost:8081)",
    )
    p.add_argument("--topic", default=DEFAULT_TOPIC, help=f"topic to read (default {DEFAULT_TOPIC})")
    p.add_argument("--max", type=int, default=0, metavar="N", help="stop after N records (default 0: no limit)")
    p.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="stop after S seconds in total (default 30; 0: no limit)",
    )
    p.add_argument(
        "--from-beginning",
        action="store_true",
        help="start at the earliest offset of every partition (a replay), not at the end",
    )
    p.add_argument(
        "--until-end",
        action="store_true",
        help="stop once every assigned partition has been read up to its end offset",
    )
    p.add_argument(
        "--group",
        default=None,
        help="consumer group id; with it, offsets are committed and the next run resumes "
        "(default: a throw-away group, nothing committed)",
    )
    args = p.parse_args(argv)
    if args.max < 0:
        p.error("--max must be >= 0")
    if args.timeout < 0:
        p.error("--timeout must be >= 0")
    return args


def _json_default(obj: Any) -> Any:
    """JSON for the few Avro values json.dumps cannot write itself (none occur in AnalyticsRow today)."""
    if isinstance(obj, (bytes, bytearray)):
        return base64.b64encode(bytes(obj)).decode("ascii")
    return str(obj)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    registry = SchemaRegistryClient({"url": args.registry})
    deserialize = AvroDeserializer(registry)
    value_ctx = SerializationContext(args.topic, MessageField.VALUE)

    consumer = Consumer(
        {
            "bootstrap.servers": args.brokers,
            "group.id": args.group or f"racing-consume-analytics-{uuid.uuid4()}",
            "enable.auto.commit": bool(args.group),
            "auto.offset.reset": "earliest" if args.from_beginning else "latest",
            "enable.partition.eof": True,
            "client.id": "racing-consume-analytics",
        }
    )

    assigned: set[tuple[str, int]] = set()
    at_end: set[tuple[str, int]] = set()

    def on_assign(c: Consumer, partitions: list) -> None:
        if args.from_beginning:
            for tp in partitions:
                tp.offset = OFFSET_BEGINNING
        assigned.update((tp.topic, tp.partition) for tp in partitions)
        c.assign(partitions)

    def on_revoke(_c: Consumer, partitions: list) -> None:
        for tp in partitions:
            assigned.discard((tp.topic, tp.partition))
            at_end.discard((tp.topic, tp.partition))

    consumer.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke)

    started = time.monotonic()
    deadline = started + args.timeout if args.timeout > 0 else None
    count = 0
    reason = "timeout"
    status = 0
    try:
        while True:
            if args.max and count >= args.max:
                reason = f"--max {args.max}"
                break
            if args.until_end and assigned and assigned <= at_end:
                reason = "end of every partition"
                break
            wait = 1.0
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    break
            msg = consumer.poll(wait)
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    at_end.add((msg.topic(), msg.partition()))
                    continue
                if err.fatal() or not err.retriable():
                    raise KafkaException(err)
                print(f"consume-analytics: {err}", file=sys.stderr)
                continue
            at_end.discard((msg.topic(), msg.partition()))
            raw_key = msg.key()
            key = raw_key.decode("utf-8") if raw_key is not None else None
            raw_value = msg.value()
            try:
                value = deserialize(raw_value, value_ctx) if raw_value is not None else None
            except Exception as exc:  # a record this reader cannot decode is an error, never skipped
                print(
                    f"consume-analytics: cannot decode {msg.topic()}[{msg.partition()}]@{msg.offset()} "
                    f"(key {key!r}): {exc}",
                    file=sys.stderr,
                )
                status = 1
                reason = "decoding error"
                break
            sys.stdout.write(json.dumps({"key": key, "value": value}, default=_json_default) + "\n")
            sys.stdout.flush()
            count += 1
    except KafkaException as exc:
        print(f"consume-analytics: Kafka error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        status, reason = 1, "Kafka error"
    except KeyboardInterrupt:
        status, reason = 130, "interrupted"
    except BrokenPipeError:
        # stdout closed early (e.g. `| head`): not an error of ours; keep the exit-time flush quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        consumer.close()
    elapsed = time.monotonic() - started
    print(f"consume-analytics: {count} record(s) from {args.topic} in {elapsed:.1f}s ({reason})", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
