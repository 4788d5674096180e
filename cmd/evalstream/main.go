// Command evalstream scores model outputs at scale: it reads records from files or Kafka,
// folds them into mergeable metric states on a pool of workers, and writes the results.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/evalstream/evalstream/cmd/evalstream/internal/startup"           // initializes before the other packages
	_ "github.com/evalstream/evalstream/cmd/evalstream/internal/startup/firstgc" // defers the first collection
	"github.com/evalstream/evalstream/internal/buildinfo"
)

// exitError carries a process exit code: 1 runtime failure, 2 usage or config error, 3 a
// gate failed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{2, fmt.Errorf(format, args...)}
}

func runtimeErr(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{1, err}
}

const usage = `evalstream scores model outputs at scale.

Usage:
  evalstream run -c PIPELINE.yaml [--set key.path=value]... [--save-state PATH]
  evalstream score [flags] INPUT...          ad-hoc scoring without a config (see: evalstream score -h)
  evalstream score -r REF [-r REF]... HYP... plain-text systems and references, as sacrebleu takes them
  evalstream merge -o OUT.state STATE...     merge partial states into one
  evalstream report [--format table|json] STATE...
  evalstream report --html OUT.html [--baseline BASE] [--history HISTORY.jsonl] RESULTS_OR_STATES...
  evalstream report --from-kafka STATE_TOPIC (--brokers ADDR[,ADDR] | -c PIPELINE.yaml) [--format json]
  evalstream compare --baseline BASE.state CAND.state...   paired tests: is a candidate better?
  evalstream compare -c PIPELINE.yaml --system-field F --baseline NAME [--test bs|ar]
  evalstream gate -c GATE.yaml RESULTS_OR_STATE           apply a gate's rules; exit 3 on failure
  evalstream validate -c PIPELINE.yaml       check a config; print every problem
  evalstream list                            metric types, options, defaults, input shapes
  evalstream bench [flags]                   measure throughput on a synthetic corpus or a file
  evalstream version

"evalstream COMMAND -h" describes a command, with examples and its flags.

Exit codes: 0 success, 1 runtime failure (also a run that scored no record, whatever
on_error: every record bad or an empty input), 2 usage or config error, 3 a gate failed
(results and sinks are still written), 130 (SIGINT) or 143 (SIGTERM) a run stopped by that
signal: it writes no results (output files keep their old content). A continuous Kafka run
stopped by a signal writes its final results, exit 0.
`

// interruptSignal is the cause of the context of a command stopped by SIGINT or SIGTERM.
type interruptSignal struct{ sig os.Signal }

func (s interruptSignal) Error() string { return s.name() + " received" }

// exitCode is the shell's code for a process ended by the signal: 128 + its number (130
// for SIGINT, 143 for SIGTERM), so that scripts and CI tell an interrupted run from a
// failed one.
func (s interruptSignal) exitCode() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

func (s interruptSignal) name() string {
	switch s.sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.sig.String()
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		// Later signals stay caught (and dropped): the command is already stopping cleanly.
		cancel(interruptSignal{<-startup.Signals})
	}()
	err := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		code := 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		// A command that fails after a signal failed because of it (its input was cut
		// short); a help or usage exit keeps its own code.
		var sig interruptSignal
		if code == 1 && ctx.Err() != nil && errors.As(context.Cause(ctx), &sig) {
			code = sig.exitCode()
		}
		if !errors.Is(err, errHelp) {
			fmt.Fprintln(os.Stderr, "evalstream:", err)
		}
		os.Exit(code)
	}
}

var errHelp = errors.New("help requested")

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return &exitError{2, errHelp}
	}
	cmd, rest := args[0], args[1:]
	if cmd != "score" && cmd != "run" {
		// score and run stay on the one CPU the process starts on until their fold ramps up
		// (startup, oneCPUStart); every other command gets every CPU now.
		startup.AllCPUs()
	}
	switch cmd {
	case "run":
		return cmdRun(ctx, rest, stdout, stderr)
	case "score":
		return cmdScore(ctx, rest, stdout, stderr)
	case "merge":
		return cmdMerge(rest, stdout, stderr)
	case "report":
		return cmdReport(ctx, rest, stdout, stderr)
	case "validate":
		return cmdValidate(rest, stdout, stderr)
	case "compare":
		return cmdCompare(ctx, rest, stdout, stderr)
	case "gate":
		return cmdGate(rest, stdout, stderr)
	case "list":
		return cmdList(rest, stdout, stderr)
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "version", "--version", "-v":
		if len(rest) > 0 && (rest[0] == "-h" || rest[0] == "--help" || rest[0] == "-help") {
			fmt.Fprint(stderr, commandHelp["version"])
			return &exitError{0, errHelp}
		}
		fmt.Fprintf(stdout, "evalstream %s\n", buildinfo.Version)
		return nil
	case "help", "-h", "--help":
		if len(rest) == 1 && rest[0] != "help" {
			// "evalstream help run" is "evalstream run -h".
			return dispatch(ctx, []string{rest[0], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageErr("unknown command %q", cmd)
}
