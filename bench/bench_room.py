"""A full room: 50 tables saving rounds while every other phone follows its table's share page.

Each table has one phone saving rounds (``POST /api/games/<id>/rounds`` with the edit token) and FOLLOWERS
phones on the share page, which polls as ``static/live.js`` does: three seconds after each answer, ``GET
/api/games/<id>`` with ``If-None-Match``; an unchanged game answers an empty 304, a changed one its state (200),
after which the page reloads (a GET of ``/games/<id>``, whose ``data-version`` is the next poll's ETag). Every
phone keeps one keep-alive connection, as a browser does: it opens a new one after an answer that closed it
(waitress closes the connection after every 304), sends a request again once on a new connection when the server
had closed an idle one, and sends back the cookies the server set (the share page sets a session cookie). A
saving phone enters a round every SAVE_MIN to SAVE_MAX seconds (drawn per round): real tables save one every few
minutes, so this is some twenty times real use. Each game starts with SEED_ROUNDS rounds played, so replays and
pages are those of a game under way.

Set-ups, each started fresh on loopback ports:

- ``sqlite``: ``phase10 serve`` exactly as ``make serve`` starts it (waitress), on a fresh SQLite file;
- ``postgres``: two ``phase10 serve`` processes on two ports against one fresh PostgreSQL database, the phones
  dealt to them in turn (a table's saver and followers land on both, so a poll on one process must see a save
  made on the other).

After WARMUP seconds the requests started in the next DURATION seconds are measured. Reported per set-up: saves,
polls (304 and 200 together) and page reloads with p50/p95/p99 of what the phone waited, errors (any other
status, a timeout or a refused connection), the CPU the server processes (and PostgreSQL's) used over the window
in % of one core, the load generator's own CPU, what the rest of the machine used meanwhile (on shared cores the
figures depend on it most), and the in-app time per request from the server's access log, which leaves out the
wait for a connection or a worker thread that the phones' figures include.

    .venv/bin/python bench/bench_room.py [--setup sqlite|postgres|both] [--tables 50] [--duration 75]

``postgres`` needs a server: ``bash .ci/with-postgres .venv/bin/python bench/bench_room.py --setup both``
(``--database`` defaults to TEST_DATABASE_URL; a database of its own is created and dropped). Exits 1 when more
than 1 % of the measured requests failed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_referee import machine  # noqa: E402

NAMES = ["Ana", "Ben", "Cy", "Dee"]
# Ana finishes phase 10 on her tenth time out (round 37); no save may end a game before the run does.
LAST_ROUND = 36
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
VERSION_ATTRIBUTE = re.compile(rb'data-version="(\d+)"')
LOG_LINE = re.compile(r'^(\S+ \S+) \S+ "(\S+) (\S+) [^"]*" (\d{3}) \d+ ([\d.]+)ms$')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def round_body(number: int) -> dict[str, object]:
    # The player going out turns round the table; the others hold a few cards and miss their phase.
    out = NAMES[(number - 1) % len(NAMES)]
    players: dict[str, object] = {n: {"laid_down": False, "points": 5 * (1 + i)} for i, n in enumerate(NAMES)}
    players[out] = {"laid_down": True}
    return {"round": number, "went_out": out, "players": players}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def cpu_seconds(pid: int, reaped: bool = False) -> float:
    """User + system CPU of one process so far (its threads included), and with ``reaped`` that of its children
    that have ended."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    used = int(fields[11]) + int(fields[12])
    if reaped:
        used += int(fields[13]) + int(fields[14])
    return used / CLOCK_TICKS


def machine_busy() -> float:
    """CPU seconds every core of the machine has spent busy so far, whoever used them."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = (
        int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]
    )
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


def server_tree_cpu(pid: int) -> float:
    """CPU of a PostgreSQL server so far: the postmaster, its live backends and those that have ended (a
    connection opened and closed within the window counts too)."""
    total = cpu_seconds(pid, reaped=True)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
            except (OSError, IndexError, ValueError):
                continue
    return total


class Phone:
    """One browser: a keep-alive connection to the server and the cookies the server set."""

    def __init__(self, port: int, timeout: float) -> None:
        self.port = port
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = {}
        self.reconnects = 0
        self.opened = 0
        self.cookies_set = 0

    def request(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        if self.cookies:
            # The share page sets a session cookie, which the browser then sends with every poll.
            headers = dict(headers, Cookie="; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        for attempt in (1, 2):
            fresh = self.conn is None
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
                self.opened += 1
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                # A browser sends again on a new connection when the server closed an idle one first.
                if fresh or attempt == 2:
                    raise
                self.reconnects += 1
                continue
            except BaseException:
                self.close()
                raise
            if response.will_close:
                self.close()
            for cookie in response.msg.get_all("Set-Cookie") or []:
                name, _, value = cookie.split(";", 1)[0].partition("=")
                self.cookies[name.strip()] = value.strip()
                self.cookies_set += 1
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@dataclass
class Record:
    kind: str  # save, poll, reload
    start: float
    ms: float
    status: int  # 0: no answer (timeout, refused, reset)


@dataclass
class Room:
    window: tuple[float, float]
    stop: threading.Event = field(default_factory=threading.Event)
    records: list[Record] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    phones: list[Phone] = field(default_factory=list)

    def timed(
        self,
        kind: str,
        phone: Phone,
        method: str,
        path: str,
        body: bytes | None,
        headers: dict[str, str],
        ok: tuple[int, ...],
    ) -> tuple[int, dict[str, str], bytes] | None:
        t0 = time.perf_counter()
        try:
            status, answer_headers, data = phone.request(method, path, body, headers)
        except OSError as exc:
            status, answer_headers, data = 0, {}, str(exc).encode()
        ms = (time.perf_counter() - t0) * 1000
        if self.window[0] <= t0 < self.window[1]:
            self.records.append(Record(kind, t0, ms, status))
            if status not in ok and len(self.failures) < 10:
                self.failures.append(f"{kind} {method} {path}: {status} {data[:200]!r}")
        return None if status not in ok else (status, answer_headers, data)

    def pause(self, seconds: float) -> bool:
        return not self.stop.wait(seconds)


def saver(
    room: Room,
    phone: Phone,
    game_id: str,
    token: str,
    first: int,
    pace: random.Random,
    args: argparse.Namespace,
) -> None:
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    number = first
    if not room.pause(pace.uniform(0, args.save_max)):
        return
    while number <= LAST_ROUND:
        body = json.dumps(round_body(number)).encode()
        # The key makes sending a round again after a timeout safe, as the round form's once-token does.
        keyed = dict(headers, **{"Idempotency-Key": f"{game_id}-{number}"})
        if room.timed("save", phone, "POST", f"/api/games/{game_id}/rounds", body, keyed, (201,)):
            number += 1
        if not room.pause(pace.uniform(args.save_min, args.save_max)):
            return


def follower(room: Room, phone: Phone, game_id: str, pace: random.Random, args: argparse.Namespace) -> None:
    etag = None
    api = f"/api/games/{game_id}"
    # Phones opened the page at different moments, so their polls do not fall in step.
    if not room.pause(pace.uniform(0, args.poll)):
        return
    while True:
        if etag is None:
            page = room.timed("reload", phone, "GET", f"/games/{game_id}", None, {}, (200,))
            found = VERSION_ATTRIBUTE.search(page[2]) if page else None
            etag = f'"{found.group(1).decode()}"' if found else None
        if not room.pause(args.poll if etag else args.poll * 3):
            return
        if etag is None:
            continue
        answer = room.timed("poll", phone, "GET", api, None, {"If-None-Match": etag}, (200, 304))
        if answer is None:
            if not room.pause(args.poll * 2):  # live.js waits three times as long after a failed poll
                return
        elif answer[0] == 200 and answer[1].get("etag") not in (None, etag):
            etag = None  # location.reload()


def api_call(port: int, method: str, path: str, body: object, token: str | None = None) -> dict[str, object]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=json.dumps(body).encode(), headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    if response.status not in (200, 201):
        raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data)


def wait_until_up(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"phase10 serve exited:\n{log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("phase10 serve did not answer within 60 s")


@contextmanager
def serving(port: int, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``phase10 serve`` as ``make serve`` runs it; its terminal (one line per request) goes to ``log``."""
    command = [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_up(port, proc, log)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def postgres_database(url: str) -> Iterator[str]:
    from sqlalchemy import create_engine, make_url, text

    from companion.app import database_url

    admin = create_engine(database_url(url), isolation_level="AUTOCOMMIT")
    name = f"bench_room_{uuid.uuid4().hex[:8]}"
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield make_url(database_url(url)).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


def postmaster_pid(url: str) -> int:
    """The PostgreSQL server's main process: one backend's parent."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        backend = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
    engine.dispose()
    return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])


def in_app_times(logs: list[Path], window: tuple[float, float], offset: float) -> dict[str, list[float]]:
    """Per kind of request, the milliseconds the app took by the server's access log, within the window."""
    times: dict[str, list[float]] = {"save": [], "poll 304": [], "poll 200": [], "reload": []}
    lo, hi = window[0] + offset, window[1] + offset
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            found = LOG_LINE.match(line)
            if not found:
                continue
            stamp, method, path, status, ms = found.groups()
            when = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()
            if not lo <= when < hi:
                continue
            if method == "POST":
                kind = "save"
            elif path.startswith("/api/"):
                kind = f"poll {status}"
            else:
                kind = "reload"
            times.setdefault(kind, []).append(float(ms))
    return times


def first_server_error(logs: list[Path]) -> str:
    """The first traceback the servers logged, to say why a request was answered 500."""
    for log in logs:
        lines = log.read_text(errors="replace").splitlines()
        for i, line in enumerate(lines):
            if "unhandled error" in line:
                tail = []
                for more in lines[i + 1 : i + 60]:
                    if LOG_LINE.match(more):
                        break
                    tail.append(more)
                return "\n".join([line, *tail[-12:]])
    return ""


@dataclass
class Result:
    name: str
    records: list[Record]
    seconds: float
    server_cpu: list[float]
    database_cpu: float | None
    generator_cpu: float
    other_cpu: float
    load: tuple[tuple[float, float, float], tuple[float, float, float]]
    in_app: dict[str, list[float]]
    reconnects: int
    cookies_set: int
    opened: int
    server_error: str
    failures: list[str]
    phones: int

    def of(self, kind: str) -> list[Record]:
        return [r for r in self.records if r.kind == kind]

    def errors(self) -> int:
        return sum(1 for r in self.records if r.status not in (200, 201, 304))


def run_room(
    name: str,
    ports: list[int],
    args: argparse.Namespace,
    server_pids: list[int],
    database_pid: int | None,
    logs: list[Path],
) -> Result:
    rng = random.Random(args.seed)
    games = []
    for table in range(args.tables):
        port = ports[table % len(ports)]
        game = api_call(port, "POST", "/api/games", {"players": NAMES})
        game_id, token = str(game["id"]), str(game["edit_token"])
        for number in range(1, args.seed_rounds + 1):
            api_call(port, "POST", f"/api/games/{game_id}/rounds", round_body(number), token)
        games.append((game_id, token))

    start = time.perf_counter() + args.warmup
    room = Room(window=(start, start + args.duration))
    threads = []
    index = 0
    for game_id, token in games:
        for role in range(1 + args.followers):
            phone = Phone(ports[index % len(ports)], args.timeout)
            index += 1
            room.phones.append(phone)
            pace = random.Random(rng.random())
            if role == 0:
                target, extra = saver, (game_id, token, args.seed_rounds + 1, pace, args)
            else:
                target, extra = follower, (game_id, pace, args)
            threads.append(threading.Thread(target=target, args=(room, phone, *extra), daemon=True))
    for t in threads:
        t.start()

    time.sleep(max(0.0, start - time.perf_counter()))
    load_before = os.getloadavg()
    server_before = [cpu_seconds(pid) for pid in server_pids]
    database_before = server_tree_cpu(database_pid) if database_pid else 0.0
    mine_before = os.times()
    busy_before = machine_busy()
    # The access log stamps wall-clock time; the window is kept on the monotonic clock.
    offset = time.time() - time.perf_counter()
    time.sleep(max(0.0, room.window[1] - time.perf_counter()))
    mine_after = os.times()
    busy_after = machine_busy()
    server_after = [cpu_seconds(pid) for pid in server_pids]
    database_after = server_tree_cpu(database_pid) if database_pid else 0.0
    load_after = os.getloadavg()
    room.stop.set()
    for t in threads:
        t.join(timeout=args.timeout + 5)
    for phone in room.phones:
        phone.close()

    seconds = args.duration
    percent = lambda s: 100 * s / seconds  # noqa: E731
    database_cpu = None
    if database_pid:
        database_cpu = percent(database_after - database_before)
    generator_cpu = percent((mine_after.user - mine_before.user) + (mine_after.system - mine_before.system))
    server_cpu = [percent(a - b) for a, b in zip(server_after, server_before, strict=True)]
    # What the rest of the machine took meanwhile: on shared cores it is what the figures depend on most.
    other_cpu = percent(busy_after - busy_before) - sum(server_cpu) - (database_cpu or 0.0) - generator_cpu
    time.sleep(0.5)  # the servers write the last log lines
    return Result(
        name=name,
        records=room.records,
        seconds=seconds,
        server_cpu=server_cpu,
        database_cpu=database_cpu,
        generator_cpu=generator_cpu,
        other_cpu=max(0.0, other_cpu),
        load=(load_before, load_after),
        in_app=in_app_times(logs, room.window, offset),
        reconnects=sum(p.reconnects for p in room.phones),
        cookies_set=sum(p.cookies_set for p in room.phones),
        opened=sum(p.opened for p in room.phones),
        server_error=first_server_error(logs),
        failures=room.failures,
        phones=len(room.phones),
    )


def measure_sqlite(args: argparse.Namespace, tmp: Path) -> Result:
    env = dict(os.environ, SECRET_KEY="bench " * 8, DATABASE_URL=f"sqlite:///{tmp}/room.sqlite3")
    port = free_port()
    log = tmp / "serve-sqlite.log"
    with serving(port, env, log) as proc:
        return run_room("phase10 serve, SQLite", [port], args, [proc.pid], None, [log])


def measure_postgres(args: argparse.Namespace, tmp: Path) -> Result:
    if not args.database:
        raise SystemExit("--setup postgres needs --database or TEST_DATABASE_URL (see .ci/with-postgres)")
    with postgres_database(args.database) as url, ExitStack() as stack:
        env = dict(os.environ, SECRET_KEY="bench " * 8, DATABASE_URL=url)
        ports, procs, logs = [], [], []
        # One after the other: the first applies the migrations, the second finds them applied.
        for n in range(2):
            port = free_port()
            log = tmp / f"serve-postgres-{n}.log"
            procs.append(stack.enter_context(serving(port, env, log)))
            ports.append(port)
            logs.append(log)
        return run_room(
            "2 x phase10 serve, PostgreSQL", ports, args, [p.pid for p in procs], postmaster_pid(url), logs
        )


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.1f} / {percentile(values, 95):.1f} / {percentile(values, 99):.1f}"


def report(results: list[Result], args: argparse.Namespace) -> None:
    from companion.cli.web import server_settings

    settings = server_settings(0)
    print(f"machine: {machine()}")
    print(
        f"waitress (phase10 serve): {settings['threads']} threads, connection limit "
        f"{settings['connection_limit']}; load generator: one process, a thread and a keep-alive connection "
        f"per phone"
    )
    print(
        f"load: {args.tables} tables, each 1 saving phone (a round every {args.save_min:g}-{args.save_max:g} s) "
        f"and {args.followers} followers (a poll {args.poll:g} s after each answer, a page reload after a "
        f"change); games start at round {args.seed_rounds + 1}; warm-up {args.warmup:g} s, measured "
        f"{args.duration:g} s"
    )
    print(
        f"CPU over the measured window in % of one core ({os.cpu_count()} cores: {100 * (os.cpu_count() or 1)} %)"
    )
    print()
    header = (
        "| set-up | saves | save p50/p95/p99 ms | polls (200) | poll p50/p95/p99 ms | reloads | "
        "reload p50/p95/p99 ms | errors | server CPU | PostgreSQL CPU | generator CPU | rest of the machine | "
        "load avg |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for r in results:
        saves, polls, reloads = r.of("save"), r.of("poll"), r.of("reload")
        changed = sum(1 for p in polls if p.status == 200)
        cpu = " + ".join(f"{c:.0f}" for c in r.server_cpu)
        database = "-" if r.database_cpu is None else f"{r.database_cpu:.0f} %"
        print(
            f"| {r.name} | {len(saves)} | {spread([x.ms for x in saves])} | {len(polls)} ({changed}) | "
            f"{spread([x.ms for x in polls])} | {len(reloads)} | {spread([x.ms for x in reloads])} | "
            f"{r.errors()} | {cpu} % | {database} | {r.generator_cpu:.0f} % | {r.other_cpu:.0f} % | "
            f"{r.load[0][0]:.2f} → {r.load[1][0]:.2f} |"
        )
    print()
    print("in the app (access log; no wait for a connection or a thread) p50 / p95 / p99 ms:")
    for r in results:
        parts = [f"{kind} {spread(ms)} (n={len(ms)})" for kind, ms in r.in_app.items() if ms]
        print(f"  {r.name}: " + "; ".join(parts))
    for r in results:
        rate = len(r.records) / r.seconds
        print(
            f"{r.name}: {rate:.0f} requests/s from {r.phones} phones; {r.reconnects} reconnects after a closed "
            f"keep-alive; {r.opened} connections opened in all; {r.cookies_set} Set-Cookie headers received"
        )
        for failure in r.failures:
            print(f"  failed: {failure[:160]}")
        if r.server_error:
            print("  the servers' first error:\n    " + r.server_error.replace("\n", "\n    "))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument(
        "--database", default=os.environ.get("TEST_DATABASE_URL"), help="PostgreSQL server URL"
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--followers", type=int, default=4, help="share-page phones per table")
    parser.add_argument(
        "--save-min", type=float, default=5.0, help="shortest pause between a table's saves, s"
    )
    parser.add_argument(
        "--save-max", type=float, default=10.0, help="longest pause between a table's saves, s"
    )
    parser.add_argument("--poll", type=float, default=3.0, help="live.js's pause after each poll, s")
    parser.add_argument(
        "--seed-rounds", type=int, default=10, help="rounds each game has when the run starts"
    )
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--duration", type=float, default=75.0)
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="a request unanswered this long failed, s"
    )
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args()
    rounds_needed = args.seed_rounds + (args.warmup + args.duration) / args.save_min + 1
    if rounds_needed > LAST_ROUND:
        raise SystemExit(
            f"games would end mid-run: lower --seed-rounds or the run's length ({rounds_needed:.0f} rounds)"
        )

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.setup in ("sqlite", "both"):
            results.append(measure_sqlite(args, Path(tmp)))
        if args.setup in ("postgres", "both"):
            results.append(measure_postgres(args, Path(tmp)))
    report(results, args)
    total = sum(len(r.records) for r in results)
    errors = sum(r.errors() for r in results)
    if total == 0 or errors > total / 100:
        print(f"FAILED: {errors} of {total} requests failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
