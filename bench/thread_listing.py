"""What an agent reads of a 200-thread server's threads: pause_debugger and get_debugger_threads on Jetty.

    python bench/thread_listing.py              # 8 pauses under load, 5 between bursts
    python bench/thread_listing.py --pauses 20

The Jetty fixture (``fixtures/jetty``: Debian's Jetty 9, a pool of 200 threads) runs under the JDWP agent;
the server runs in this process (the SDK's in-memory client). Under load (40 client threads from
127.0.0.1, bounded in count and time: ``support.jetty.Load``) each round pauses, lists the threads with
``stackDepth: 5``, resumes and waits for 100 more completed requests; then, the load over, the same between
bursts. Sizes are bytes of each answer's JSON text, as the client receives it; "entries" counts the threads
listed by themselves plus the folded sets (docs/tools.md, "Similar threads"). Asserts nothing
(tests/server/test_server_threads.py holds the largest of five pauses under load to the goals).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from common import Table
from mcp import Client

from pyjdwp_server import Config, build_server
from support.jetty import JettyApp, Load, compile_jetty

CLIENTS = 40


async def _call(client: Client, tool: str, **arguments: Any) -> tuple[dict[str, Any], int]:
    raw = await client.call_tool(tool, arguments)
    text = raw.content[0].text
    body = json.loads(text)
    if not body.get("success"):
        raise RuntimeError(f"{tool} failed: {body.get('error')}")
    return body, len(text.encode())


async def _round(client: Client, sid: str) -> list[str]:
    """One pause, its threads with stackDepth 5, and the resume: the row's cells."""
    paused, pause_size = await _call(client, "pause_debugger", debugSessionId=sid)
    stop_id = paused["result"]["stop"]["stop_id"]
    listed, listed_size = await _call(client, "get_debugger_threads", debugSessionId=sid, stopId=stop_id,
                                      stackDepth=5)
    await _call(client, "resume_debugger", debugSessionId=sid, stopId=stop_id)
    entries = listed["result"]["threads"]
    biggest = max((e["count"] for e in entries if "count" in e), default=1)
    return [str(pause_size), str(len(paused["result"]["threads"])), str(listed_size), str(len(entries)),
            str(biggest)]


async def session(app: JettyApp, pauses: int) -> list[list[str]]:
    rows: list[list[str]] = []
    async with Client(build_server(Config())) as client:
        attached, _ = await _call(client, "attach_debugger", platform="jvm", address=f"127.0.0.1:{app.jdwp_port}")
        sid = attached["debug_session_id"]
        load = Load(app.http_port, clients=CLIENTS, requests=50_000, duration=120).start()
        try:
            await anyio.to_thread.run_sync(lambda: load.wait_completed(400))
            for _ in range(pauses):
                rows.append(["under load", *await _round(client, sid)])
                await anyio.to_thread.run_sync(partial(load.wait_completed, load.report.completed + 100))
        finally:
            await anyio.to_thread.run_sync(load.stop)
        for _ in range(5):
            rows.append(["between bursts", *await _round(client, sid)])
        await _call(client, "detach_debugger", debugSessionId=sid)
    return rows


def measure(pauses: int) -> Table:
    with tempfile.TemporaryDirectory() as tmp:
        app = JettyApp(compile_jetty(Path(tmp)))
        try:
            rows = anyio.run(session, app, pauses, backend="trio")
        finally:
            app.stop()
    loaded = [row for row in rows if row[0] == "under load"]
    largest = (f"under load, largest: pause {max(int(r[1]) for r in loaded)} B, threads with stackDepth 5 "
               f"{max(int(r[3]) for r in loaded)} B" if loaded else "no pause under load")
    return Table("A 200-thread Jetty's threads as an agent reads them (bytes of each answer's JSON text)",
                 ["when", "pause_debugger B", "pause entries", "threads stackDepth 5 B", "threads entries",
                  "biggest folded set"], rows,
                 notes=[f"load: {CLIENTS} client threads from 127.0.0.1; goals (issue 32): pause ≤ 8,000 B, "
                        "threads with stackDepth 5 ≤ 16,000 B", largest])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pauses", type=int, default=8, help="pauses under load (default 8)")
    args = parser.parse_args()
    print(measure(args.pauses).text())


if __name__ == "__main__":
    main()
