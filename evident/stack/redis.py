"""Redis for the local stack: the Debian ``redis-server``, configured by us, run by supervisord.

Our own code only writes ``redis.conf`` (loopback, the port, data under the state dir, in the
foreground so supervisord keeps it) and asks Redis how it is, through redis-py.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from evident.stack import HOST, ServiceError, port_open
from evident.stack.supervisor import Program

# A local Redis answers PING in microseconds; 2 s covers one that is busy loading its dump.
PING_TIMEOUT = 2.0
# Redis is serving once it answers PING; 2 s up rules out a config it rejects at once.
START_SECS = 2
# On SIGTERM Redis writes its dump; 30 s before supervisord uses SIGKILL.
STOP_WAIT_SECS = 30
_PLACES = ("/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server")


def find_redis_server() -> str:
    found = shutil.which("redis-server") or next((p for p in _PLACES if os.access(p, os.X_OK)), None)
    if not found:
        raise ServiceError("redis-server not found; install the Debian package redis-server "
                           "(apt-get install -y redis-server)")
    return found


def _client(port: int) -> redis.Redis:
    # No retries: a probe wants the port's answer now (redis-py would otherwise retry with backoff).
    return redis.Redis(host=HOST, port=port, socket_timeout=PING_TIMEOUT, socket_connect_timeout=PING_TIMEOUT,
                       retry=Retry(NoBackoff(), 0))


def probe(port: int) -> tuple[str, str | None]:
    """("redis", version) | ("auth", None) (a Redis that wants a password) | ("other", None) | ("free", None)."""
    client = _client(port)
    try:
        client.ping()
        return "redis", client.info("server").get("redis_version")
    except redis.AuthenticationError:
        return "auth", None
    except redis.ResponseError as exc:
        return ("auth", None) if "auth" in str(exc).lower() else ("other", None)
    except (redis.RedisError, OSError):
        return ("other", None) if port_open(port) else ("free", None)
    finally:
        client.close()


def ready(port: int) -> bool:
    return probe(port)[0] == "redis"


def prepare(state_dir: Path, *, port: int) -> Program:
    """redis.conf under ``<state dir>/redis`` and the program that runs it in the foreground."""
    server = find_redis_server()
    root = state_dir / "redis"
    (root / "data").mkdir(parents=True, exist_ok=True)
    conf = root / "redis.conf"
    conf.write_text(
        "# Written by evident.stack.redis on every start; edits are overwritten.\n"
        f"bind {HOST}\nprotected-mode yes\nport {port}\n"
        "daemonize no\nsupervised no\n"  # supervisord keeps it; it logs to stdout, into supervisord's log
        'logfile ""\n'
        f'dir "{root / "data"}"\ndbfilename dump.rdb\n'
        "save 3600 1 300 100 60 10000\nappendonly no\nloglevel notice\n")
    return Program("redis", [server, str(conf)], directory=root, start_secs=START_SECS,
                   stop_wait_secs=STOP_WAIT_SECS)
