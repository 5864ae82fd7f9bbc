// Command openpocket is the composition root: it assembles the application
// (app.go: the adapters and the front ends the CLI starts), hands it with
// the process's arguments and streams to the CLI, and exits with the code
// it returns.
package main

import (
	"context"
	"os"
	// Cron jobs name time zones; embed the zone database so schedules work
	// on machines without tzdata.
	_ "time/tzdata"

	"github.com/openpocket/openpocket/internal/cli"
)

func main() {
	setMemoryLimit()
	os.Exit(cli.MainWith(context.Background(), os.Args[1:], os.Stdout, os.Stderr, newApplication()))
}
