// Package version says which natsperf build is running.
package version

import (
	"runtime"
	"runtime/debug"

	"github.com/natsperf/natsperf/internal/result"
)

// Version is set at build time with -ldflags "-X github.com/natsperf/natsperf/internal/version.Version=v1.2.3";
// otherwise it comes from the module's build info.
var Version = ""

// String returns the version, or "devel" plus the VCS revision when unknown.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "devel-" + s.Value[:12]
			}
		}
	}
	return "devel"
}

// Tool describes this build for a Result.
func Tool() result.Tool {
	return result.Tool{Name: "natsperf", Version: String(), Go: runtime.Version()}
}
