package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr,
		"usage: tether version",
		"Prints the module's version and the VCS revision it was built from (as the Go",
		"toolchain recorded them in the binary), and the toolchain that built it.",
	)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintf(stdout, "tether: no build information; built by %s\n", runtime.Version())
		return nil
	}
	writeVersion(stdout, info)
	return nil
}

// writeVersion writes what info says of the build: the main module's path and
// version ("(devel)" when built from a checkout without a version stamp), the
// VCS revision, its time and whether the working tree had local changes,
// and the toolchain and platform.
func writeVersion(w io.Writer, info *debug.BuildInfo) {
	fmt.Fprintf(w, "tether %s (%s)\n", info.Main.Version, info.Main.Path)
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	if rev := set["vcs.revision"]; rev != "" {
		fmt.Fprintf(w, "revision %s", rev)
		if t := set["vcs.time"]; t != "" {
			fmt.Fprintf(w, " (%s)", t)
		}
		if set["vcs.modified"] == "true" {
			fmt.Fprint(w, " with local changes")
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "revision unknown (built without VCS information)")
	}
	fmt.Fprintf(w, "built by %s for %s/%s\n", info.GoVersion, set["GOOS"], set["GOARCH"])
}
