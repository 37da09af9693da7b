package stamp

import (
	"fmt"
	"strings"
)

// Fill is what follows the stamp in a message body (--payload-fill). Both fillers compress
// well, as much real traffic (JSON, logs) does: pair them with stream compression.
type Fill string

// The fillers; the zero Fill is FillText.
const (
	// FillText is the alphabet repeated ("...abcdefghijklmnopqrstuvwxyz..."), readable in a
	// store dump; S2 compresses it to about a tenth.
	FillText Fill = "text"
	// FillZeros is zero bytes: the most compressible payload.
	FillZeros Fill = "zeros"
)

// ParseFill reads --payload-fill.
func ParseFill(s string) (Fill, error) {
	switch f := Fill(strings.ToLower(strings.TrimSpace(s))); f {
	case "", FillText:
		return FillText, nil
	case FillZeros:
		return f, nil
	}
	return "", fmt.Errorf("--payload-fill must be text or zeros, got %q", s)
}

// Payload is a message body of size bytes: room for the stamp, then the filler.
func (f Fill) Payload(size int) []byte {
	b := make([]byte, size)
	if f == FillZeros {
		return b
	}
	for i := Size; i < len(b); i++ {
		b[i] = byte('a' + i%26)
	}
	return b
}
