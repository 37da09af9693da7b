package result

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Write encodes r as indented JSON.
func Write(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	return nil
}

// WriteFile writes r to path, replacing it atomically so a crash never leaves half a file.
func WriteFile(path string, r *Result) error {
	tmp, err := os.CreateTemp(dirOf(path), ".natsperf-result-*")
	if err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := Write(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// Read decodes one Result and checks its schema.
func Read(r io.Reader) (*Result, error) {
	var res Result
	dec := json.NewDecoder(r)
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("decode result: %w", err)
	}
	if res.Schema != Schema && res.Schema != SchemaV1 {
		return nil, fmt.Errorf("decode result: schema %q is not %q", res.Schema, Schema)
	}
	return &res, nil
}

// ReadFile reads one Result file.
func ReadFile(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read result: %w", err)
	}
	defer f.Close()
	res, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}
