package ops

import (
	"runtime/debug"
	"sync"
)

// Version returns the version of the running build, for logs and
// tether_build_info: the main module's version when it was built as a
// module (go install ...@v1.2.3), else the commit it was built from (12
// hex digits, "+dirty" with uncommitted changes), else "devel".
var Version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	rev = rev[:min(len(rev), 12)]
	if dirty {
		rev += "+dirty"
	}
	return rev
})
