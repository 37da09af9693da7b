package spec

import "regexp"

// serverVersionRE is a nats-server release tag, as go install takes it.
var serverVersionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// checkProcesses checks server_bin and server_version.
func (e *Embedded) checkProcesses(c *checker) {
	if e.ServerBin != "" && e.ServerVersion != "" {
		c.failf("target.embedded.server_bin", "server_bin and server_version exclude each other")
	}
	if e.ServerVersion != "" && !serverVersionRE.MatchString(e.ServerVersion) {
		c.failf("target.embedded.server_version", "want a nats-server release tag such as v2.12.15, got %q", e.ServerVersion)
	}
	if e.Processes() {
		switch e.Encryption {
		case "", "none":
		default:
			c.failf("target.embedded.encryption", "encryption at rest is not yet set on nats-server processes: use the in-process server")
		}
	}
}
