package engine

import (
	"fmt"
	"os"

	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/spec"
)

// payloadConfig is a spec payload as the publishers take it.
func payloadConfig(p spec.Payload) payload.Config {
	return payload.Config{File: p.File, Random: p.Random, Headers: p.Headers, InHeader: p.Stamp == "header"}
}

// payloadSize is the messages' payload size: a payload file's length, else size.
func payloadSize(p spec.Payload, size int64) (int64, error) {
	if p.File == "" {
		return size, nil
	}
	fi, err := os.Stat(p.File)
	if err != nil {
		return 0, InputError{fmt.Errorf("payload file: %w", err)}
	}
	if fi.Size() > 64<<20 {
		return 0, InputError{fmt.Errorf("payload file %s is %d bytes, more than NATS' 64 MiB maximum payload", p.File, fi.Size())}
	}
	return fi.Size(), nil
}
