package procs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallUsesTheCache(t *testing.T) {
	for v, ok := range map[string]bool{"v2.12.15": true, "v2.15.0-RC.1": true, "2.12.15": false, "v2.12": false, "latest": false, "v2.12.15;rm": false} {
		if err := CheckVersion(v); (err == nil) != ok {
			t.Errorf("CheckVersion(%q) = %v", v, err)
		}
	}
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == CacheEnv {
			return dir
		}
		return ""
	}
	if p := Cached(getenv, "v9.9.9"); p != "" {
		t.Fatalf("Cached found %s in an empty cache", p)
	}
	bin := filepath.Join(dir, "v9.9.9", "nats-server")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Install(context.Background(), getenv, "v9.9.9", nil) // cached: nothing is built
	if err != nil || got != bin {
		t.Fatalf("Install = %q, %v; want the cached %s", got, err, bin)
	}
	if _, err := Install(context.Background(), getenv, "9.9.9", nil); err == nil || !strings.Contains(err.Error(), "release tag") {
		t.Fatalf("Install of a bad version: %v", err)
	}
}
