package stamp

import "unsafe"

// Header is the message header a stamp rides in when the payload is the user's own
// (--payload FILE) or a run asks for it (--stamp header): the stamp's 16 or 24 bytes as
// lowercase hex (32 or 48 characters), so the payload arrives byte for byte.
const Header = "Natsperf-Stamp"

const hexDigits = "0123456789abcdef"

// HexSize is the header value's length for a stamp of n bytes.
func HexSize(n int) int { return 2 * n }

// PutHex writes st as hex into dst (at least 2*len(st) long) and returns the value as a
// string sharing dst's memory: a publisher rewrites it in place for every message, and
// nats.go encodes the header during the publish call, so nothing is allocated per message.
func PutHex(dst []byte, st []byte) string {
	_ = dst[2*len(st)-1]
	for i, b := range st {
		dst[2*i], dst[2*i+1] = hexDigits[b>>4], hexDigits[b&0x0f]
	}
	return unsafe.String(&dst[0], 2*len(st))
}

// Find is where a received message's stamp is: the Natsperf-Stamp header decoded into buf, or
// else the payload itself (Get and GetExt read it from there). A header that is not a stamp
// gives nil (the message then counts as unstamped). It allocates nothing: nats.go has already
// parsed the headers into a map, and one lookup by the canonical name reads them.
func Find(header map[string][]string, data []byte, buf *[ExtSize]byte) []byte {
	v, ok := header[Header]
	if !ok || len(v) == 0 {
		return data
	}
	return fromHex(v[0], buf)
}

func fromHex(s string, buf *[ExtSize]byte) []byte {
	if len(s) != HexSize(Size) && len(s) != HexSize(ExtSize) {
		return nil
	}
	for i := 0; i < len(s)/2; i++ {
		hi, lo := unhex(s[2*i]), unhex(s[2*i+1])
		if hi > 15 || lo > 15 {
			return nil
		}
		buf[i] = hi<<4 | lo
	}
	return buf[:len(s)/2]
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 255
}

// Extended reports whether the stamp in buf (at least Size long) is an extended one.
func Extended(buf []byte) bool { return buf[15]&0x80 != 0 }
