package cmdline

import "github.com/spf13/pflag"

// pendingFlags bound a core subscriber's client-side buffer; beyond them the client library
// drops messages (counted in events).
type pendingFlags struct {
	Msgs  int   `json:"pending_msgs"`
	Bytes int64 `json:"pending_bytes"`
}

func (p *pendingFlags) register(f *pflag.FlagSet) {
	p.Msgs, p.Bytes = -1, -1
	f.IntVar(&p.Msgs, "pending-msgs", -1, "core NATS: messages a subscriber may buffer before the client library drops (-1: unlimited)")
	f.Int64Var(&p.Bytes, "pending-bytes", -1, "core NATS: bytes a subscriber may buffer before the client library drops (-1: unlimited)")
}

func (p *pendingFlags) validate() error {
	if p.Msgs == 0 || p.Msgs < -1 || p.Bytes == 0 || p.Bytes < -1 {
		return usagef("--pending-msgs and --pending-bytes must be positive, or -1 for unlimited")
	}
	return nil
}
