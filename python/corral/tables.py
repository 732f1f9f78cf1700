"""Result tables: the column schema of every table a run produces, and their conversion.

The native core hands back each table as a dict of column name -> Python list. Here each
one becomes a polars DataFrame with an explicit schema, so that an empty table (a run
without drops, say) still has the documented columns and dtypes. The schemas below are the
single place the output columns are defined; README_columns.md documents them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

I64, F64, STR, BOOL = pl.Int64, pl.Float64, pl.Utf8, pl.Boolean

SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "flows": {
        "flow_id": I64,
        "src": STR,
        "dst": STR,
        "tag": STR,
        "priority": I64,
        "weight": F64,
        "cc": STR,
        "hops": I64,
        "size_bytes": I64,
        "start_s": F64,
        "finish_s": F64,
        "fct_s": F64,
        "bytes_delivered": I64,
        "goodput_bps": F64,
        "packets_sent": I64,
        "retransmits": I64,
        "timeouts": I64,
        "fast_recoveries": I64,
        "ecn_cuts": I64,
        "tenant": STR,
        "class": STR,
        "ideal_fct_s": F64,
        "slowdown": F64,
        "deadline_s": F64,
        "deadline_met": BOOL,
    },
    "throughput": {
        "time_s": F64,
        "flow_id": I64,
        "bytes": I64,
        "goodput_bps": F64,
    },
    "queues": {
        "time_s": F64,
        "node": STR,
        "port": I64,
        "bytes": I64,
        "packets": I64,
    },
    "drops": {
        "time_s": F64,
        "node": STR,
        "port": I64,
        "in_node": STR,
        "in_port": I64,
        "flow_id": I64,
        "seq": I64,
    },
    "drop_runs": {
        "node": STR,
        "port": I64,
        "in_port": I64,
        "in_node": STR,
        "run_length": I64,
        "episodes": I64,
    },
    "ports": {
        "node": STR,
        "port": I64,
        "peer": STR,
        "rate_bps": I64,
        "tx_packets": I64,
        "tx_bytes": I64,
        "drops": I64,
        "ecn_marks": I64,
        "max_queue_bytes": I64,
        "utilization": F64,
    },
    "throughput_class": {
        "time_s": F64,
        "class": STR,
        "bytes": I64,
        "goodput_bps": F64,
        "active_flows": I64,
    },
    "latency": {
        "time_s": F64,
        "flow_id": I64,
        "class": STR,
        "latency_s": F64,
    },
}

TABLES: tuple[str, ...] = tuple(SCHEMAS)


def to_frame(name: str, columns: Mapping[str, Sequence] | None) -> pl.DataFrame:
    """Build table `name` from a column dict, with the documented schema.

    Columns the core adds beyond the schema are kept (after the documented ones) so that a
    newer core never loses data; documented columns it lacks are an error, because every
    consumer relies on them.
    """
    schema = SCHEMAS[name]
    columns = dict(columns or {})
    missing = [c for c in schema if c not in columns]
    if columns and missing:
        raise ValueError(f"core results table {name!r} lacks columns {missing}")
    data = {c: columns.get(c, []) for c in schema}
    frame = pl.DataFrame(data, schema=schema)
    extra = [c for c in columns if c not in schema]
    if extra:
        frame = frame.hstack(pl.DataFrame({c: columns[c] for c in extra}))
    return frame
