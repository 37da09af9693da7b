// Package compat holds natsperf's compatibility suite (its tests): every workload kind the
// engine runs, against a real nats-server process of each supported minor release, either
// runs (its counts checked against the server's /varz or the stream's state) or is refused up
// front in one line naming the release it needs. See docs/versions.md.
package compat
