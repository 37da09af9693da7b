// Package version says which natsperf build is running.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/result"
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

// ClientLib is the client library natsperf measures through: nats.go, at the version this
// build links (from the build info; nats.go's own Version constant when there is none).
func ClientLib() *result.ClientLib {
	lib := clientLib()
	return &lib
}

var clientLib = sync.OnceValue(func() result.ClientLib {
	v := nats.Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/nats-io/nats.go" {
				if d.Replace != nil {
					d = d.Replace
				}
				if d.Version != "" && d.Version != "(devel)" {
					v = strings.TrimPrefix(d.Version, "v")
				}
			}
		}
	}
	return result.ClientLib{Library: "nats.go", Version: v}
})
