// Package live takes a run's interval records as they close: it appends them to a JSON-lines
// file, so a run of hours keeps flat memory and loses nothing finished when it stops, and it
// keeps the latest rates and latency percentiles for the Prometheus endpoint.
package live

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/natsperf/natsperf/internal/record"
)

// Line is one interval of one client in a series file.
type Line struct {
	T     int64  `json:"t"`   // start of the interval, Unix nanoseconds
	Src   string `json:"src"` // "pod1/pub/2": group and client id
	Msgs  int64  `json:"msgs"`
	Bytes int64  `json:"bytes"`
	Lat   string `json:"lat,omitempty"` // the interval's latency histogram (HdrHistogram V2, base64)
}

// Sink drains the runner's series channel on its own goroutine.
type Sink struct {
	c       chan record.Slice
	f       *os.File
	w       *bufio.Writer
	metrics *Metrics
	done    chan struct{}
	err     error
	Lines   int64 // written, valid after Close
}

// Buffer is how many closed intervals may wait for the writer; recorders keep what does not
// fit (record.Options.Sink), so a slow disk costs memory, never data.
const Buffer = 4096

// Open starts a sink writing to path ("" writes no file) and feeding m (nil: none).
func Open(path string, m *Metrics) (*Sink, error) {
	s := &Sink{c: make(chan record.Slice, Buffer), metrics: m, done: make(chan struct{})}
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("series file: %w", err)
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	go s.loop()
	return s, nil
}

// C is what the runner sends to.
func (s *Sink) C() chan<- record.Slice { return s.c }

func (s *Sink) loop() {
	defer close(s.done)
	enc := json.NewEncoder(nil)
	if s.w != nil {
		enc = json.NewEncoder(s.w)
	}
	for sl := range s.c {
		if s.metrics != nil {
			s.metrics.observe(sl)
		}
		if s.w == nil || s.err != nil {
			continue
		}
		if err := enc.Encode(Line{T: sl.Start, Src: sl.Src, Msgs: sl.Msgs, Bytes: sl.Bytes, Lat: sl.Lat}); err != nil {
			s.err = err
			continue
		}
		s.Lines++
		if len(s.c) == 0 { // caught up: make what we have durable for a reader or a crash
			s.err = s.w.Flush()
		}
	}
}

// Close ends the sink once the runner is done sending, and flushes the file.
func (s *Sink) Close() error {
	close(s.c)
	<-s.done
	if s.f == nil {
		return nil
	}
	err := s.err
	if ferr := s.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("series file: %w", err)
	}
	return nil
}

// Read reads a series file.
func Read(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return out, fmt.Errorf("%s: line %d: %w", path, len(out)+1, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}
