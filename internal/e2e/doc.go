// Package e2e holds end-to-end tests of natsperf's processes over a real network: a
// `natsperf server`, three `natsperf agent`s and a coordinator, each in its own Linux network
// namespace (internal/netns), so every benchmark and control message crosses veth links. They
// need root and iproute2's ip (CI has both) and skip, saying why, elsewhere; the same cases on
// loopback are internal/coord's agents_test.go. docs/distributed.md says what they check.
package e2e
