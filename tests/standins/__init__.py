"""Stand-ins for what cannot run here: servers on loopback that speak the real protocol of a remote system
(a Confluence, an intranet web site), serve test data, record the requests they get, and can be made to
misbehave (rate limits, server errors, removed pages) so the tests see what a user would.

Never a mock of this project's own code: everything of ours runs for real against these servers.
"""

# Where the stand-ins serve: loopback, which a source reaches only when allowed like an intranet host there
# (``sources.allowed_private_hosts``); "localhost" is the name their pages use for "another host".
STANDIN_HOSTS = ("127.0.0.1", "localhost")
# Seconds between a loopback server's looks for a stop (``serve_forever``'s poll): a test's teardown waits up to
# this long for its servers; the standard library's half a second, over the suite's hundred servers, cost a minute.
SHUTDOWN_POLL = 0.05
