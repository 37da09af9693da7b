package cli

import (
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/spec"
)

// jsEncryptionHelp is --js-encryption's help, the same on every command.
const jsEncryptionHelp = "encrypt the embedded server's JetStream store at rest: aes or chacha (nats-server's ciphers), none; the key is $" +
	embedded.KeyEnv + ", else one generated for the run (never printed or saved)"

// checkEncryption refuses --js-encryption where it cannot act: it configures the embedded
// server, and a server given with -s or --context encrypts as its own configuration says.
func (c *connFlags) checkEncryption() error {
	enc, err := embedded.ParseEncryption(c.jsEncryption)
	if err != nil {
		return usagef("--js-encryption: %v", err)
	}
	if enc != "" && (c.s.Servers != "" || c.s.Context != "") {
		return usagef("--js-encryption configures natsperf's embedded server; a server given with -s or --context encrypts at rest as its own configuration says (jetstream { cipher, key })")
	}
	if err := c.checkProcesses(); err != nil {
		return err
	}
	return c.checkSync()
}

// target is the connection flags and --js-encryption as a spec target.
func (c *connFlags) target() spec.Target {
	t := connect.SpecTarget(c.s)
	t.SysCreds, t.SysUser, t.SysPassword = c.sysCreds, c.sysUser, spec.Secret(c.sysPassword)
	c.withEncryption(&t)
	c.withLinks(&t)
	c.withProcesses(&t)
	c.withSync(&t)
	return t
}

// withEncryption asks t for an encrypted embedded server when --js-encryption says so (and t
// names no server): the run then starts the embedded server, even when NATS_URL names one.
func (c *connFlags) withEncryption(t *spec.Target) {
	enc, err := embedded.ParseEncryption(c.jsEncryption)
	if err != nil || enc == "" || len(t.Servers) > 0 || t.Context != "" {
		return
	}
	if t.Embedded == nil {
		t.Embedded = &spec.Embedded{}
	}
	if t.Embedded.Encryption == "" {
		t.Embedded.Encryption = enc
	}
}
