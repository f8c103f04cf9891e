// Package datadriven runs scripted test scenarios whose expected output is
// checked in beside them: a test reads a script from its package's testdata/
// directory, runs each command against the code under test, and compares
// what the command prints with the output recorded under it. The idea is
// that of etcd-io/raft's testdata/ (after cockroachdb/datadriven); this is a
// small implementation of it for Tether's own tests.
//
// # Format
//
// A script is a text file of commands, one after another:
//
//	# A comment: a line starting with '#' between commands.
//	command key=value flag other=1,2,3
//	an input line
//	another input line
//	----
//	the expected output
//	of the command
//
// A command is a line of words separated by spaces: its name, then its
// arguments, each either key=value or a bare key (a flag). Values contain no
// spaces; a list is written with commas (pos=1,0,0). Durations are written
// as Go writes them (100ms, 1.5s). The lines after the command, up to a line
// "----", are its input (a command may have none; Command.Sub reads them as
// commands of their own). Every command has a "----" line. The lines after
// it, up to the first blank line or the end of the file, are the output
// expected; it may be empty. Blank lines and comments between commands are
// kept as they are.
//
// Output is compared line for line, exactly, so a test must print values at
// fixed precision (Fix, Ms): a trace shows millimetres and tenths of a
// millisecond, not the last bits of a float64. An output may not contain a
// blank line (it would end it).
//
// An argument the test never reads is an error, so that a misspelt key
// fails rather than silently doing nothing.
//
// # Running
//
// A test runs every script of a directory, each as a subtest with a fresh
// handler (a scenario of its own):
//
//	func TestTraces(t *testing.T) {
//		datadriven.RunDir(t, "testdata", func() datadriven.Handler { return new(scenario).do })
//	}
//
// The handler reads the command's arguments with Command's accessors (Dur,
// Float, Floats, Stream, ...) and returns what it prints. Tether's traces of
// networked cores write a stream of sends over a scripted link the same way
// everywhere: from= to= hz= latency= jitter= (Command.Stream).
//
// # Rewriting
//
// Run with -rewrite, the test writes each command's actual output into the
// script in place of the expected one, keeping everything else:
//
//	go test ./timeline -run TestTraces -rewrite
//
// Review the difference (git diff) before committing it: the rewritten
// output is whatever the code does now. The flag is defined by this package,
// so give it only to packages whose tests import it (go test ./... -rewrite
// fails in the others).
//
// The package is internal: it is for Tether's tests, and depends on nothing
// but the standard library.
package datadriven
