package cmdline

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/spec"
)

// payloadFlags are nats bench's --payload and -H/--header, natsperf's --payload-random, and
// --stamp: what a publisher's messages carry and where the latency/loss stamp rides.
type payloadFlags struct {
	File    string
	Random  bool
	Headers []string
	Stamp   string
}

func (p *payloadFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.File, "payload", "", "send this file's bytes, unchanged, as every message's payload (--size is then the file's); the stamp rides in the "+stamp.Header+" header, so receivers still measure latency and loss")
	f.BoolVar(&p.Random, "payload-random", false, "fill the payload with random, incompressible bytes (the stamp still takes its first 16)")
	f.StringArrayVarP(&p.Headers, "header", "H", nil, "add a header KEY:VALUE to every message (repeatable)")
	f.StringVar(&p.Stamp, "stamp", "payload", "where the latency/loss stamp rides: payload (its first 16 or 24 bytes) or header ("+stamp.Header+", 32 or 48 hex characters), to measure what headers cost; header with --payload")
}

func (p *payloadFlags) validate(f *pflag.FlagSet) error {
	switch p.Stamp {
	case "payload", "header":
	default:
		return usagef("--stamp must be payload or header, got %q", p.Stamp)
	}
	if p.File != "" {
		switch fi, err := os.Stat(p.File); {
		case err != nil:
			return usagef("--payload: %v", err)
		case fi.IsDir():
			return usagef("--payload %s is a directory", p.File)
		case fi.Size() > 64<<20:
			return usagef("--payload %s is larger than NATS' 64 MiB maximum payload", p.File)
		}
		if p.Random {
			return usagef("--payload sends the file as it is: not with --payload-random")
		}
		if f.Changed("stamp") && p.Stamp == "payload" {
			return usagef("--payload sends the file as it is: its stamp rides in the header (--stamp header)")
		}
		if f.Changed("size") {
			return usagef("--payload's size is the file's: leave out --size")
		}
	}
	if _, err := payload.ParseHeaders(p.Headers); err != nil {
		return usageError{err}
	}
	return nil
}

// spec is the flags as a spec payload; the defaults stay zero.
func (p *payloadFlags) spec() spec.Payload {
	out := spec.Payload{File: p.File, Random: p.Random, Headers: p.Headers}
	if p.Stamp == "header" || p.File != "" {
		out.Stamp = "header"
	}
	return out
}
