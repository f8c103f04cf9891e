// Command tether runs Tether's showcase match (demo), dedicated servers and
// bots (serve, bot), connect-token tooling (keygen, token) and the lab that
// measures it all (lab). Run "tether help" for the list of commands.
//
// Every command exits with status 0 when done (or when -h or help asks for
// help), 1 when it ran and failed, and 2 for a command line it cannot run:
// no command, an unknown command, a bad flag, value or combination of flags.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/tether-net/tether/game/soccer/match"
)

// command is one subcommand: run parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{name: "demo", summary: "play a live soccer match: a server and bots over emulated links, on a web page", run: runDemo},
	{name: "serve", summary: "run a dedicated soccer server that accepts clients with connect tokens", run: runServe},
	{name: "bot", summary: "connect to a server with a connect token and play as a bot", run: runBot},
	{name: "load", summary: "play N bots against a server for a bounded time; report their figures and its CPU", run: runLoad},
	{name: "lab", summary: "measure clock and replication methods on emulated networks", run: runLab},
	{name: "keygen", summary: "write a new private key for connect tokens", run: runKeygen},
	{name: "token", summary: "mint a connect token (what a matchmaking backend does)", run: runToken},
	{name: "version", summary: "print the module's version, its VCS revision and the Go toolchain", run: runVersion},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses, the same for every command.
const (
	exitOK      = 0 // done, or help asked for (-h, help)
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // a command line it cannot run: no command, an unknown one, a bad flag or value
)

// run executes the command line args and returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) == 2 && args[0] == "help" && lookup(args[1]) != nil {
			// tether help COMMAND is tether COMMAND -h.
			args = []string{args[1], "-h"}
		} else {
			usage(stdout)
			return exitOK
		}
	}
	if c := lookup(args[0]); c != nil {
		err := c.run(args[1:], stdout, stderr)
		var ue usageError
		var le loggedError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.As(err, &le):
			return exitFailure
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "tether %s: %v\nRun \"tether %s -h\" for its flags.\n", c.name, err, c.name)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "tether %s: %v\n", c.name, err)
			return exitFailure
		}
	}
	fmt.Fprintf(stderr, "tether: unknown command %q\nRun \"tether help\" for the list of commands.\n", args[0])
	return exitUsage
}

// lookup returns the command named name, or nil.
func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// usageError is a command line a command cannot run: a bad flag, value or
// combination of flags. It exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError formatted as fmt.Errorf does.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tether <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"tether <command> -h\" or \"tether help <command>\" for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 done, 1 failed, 2 a command line it cannot run (no command, an unknown one, a bad flag).")
}

// newFlags returns the flag set of subcommand name: it reports to stderr, and
// its usage is the lines given, then the flags and their defaults.
func newFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(stderr, l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a command's flags from args; commands take no other
// arguments, so any left over are an error. Errors are usage errors, but for
// flag.ErrHelp (-h), which prints the command's usage: a bad flag or value is
// reported by run in two lines, not followed by every flag. A duration flag
// given a bare number says it needs a unit.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	durations := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, ok := g.Get().(time.Duration); ok {
				durations[f] = f.Value
				f.Value = durationValue{f.Value}
			}
		}
	})
	err := fs.Parse(args)
	for f, v := range durations {
		f.Value = v
	}
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	return nil
}

// durationValue is a duration flag's value while its command line is parsed:
// its error says what a value it cannot parse lacks.
type durationValue struct{ flag.Value }

func (d durationValue) Set(s string) error {
	if d.Value.Set(s) == nil {
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Errorf("%s needs a unit, e.g. %ss", s, s)
	}
	return errors.New("want a duration such as 300ms, 20s or 5m")
}

// printJSON writes v to w as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// protocolFlag defines -protocol-id on fs: the game's netcode protocol id,
// decimal or 0x-prefixed hex, not 0; the soccer match's by default.
func protocolFlag(fs *flag.FlagSet, usage string) *uint64 {
	id := uint64(match.ProtocolID)
	fs.Func("protocol-id", fmt.Sprintf("%s, decimal or 0x-prefixed hex (default %#x)", usage, id), func(s string) error {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil || v == 0 {
			return errors.New("want a non-zero 64-bit unsigned number")
		}
		id = v
		return nil
	})
	return &id
}
