// Command openpocket is the composition root: it hands the process's
// arguments and streams to the CLI and exits with the code it returns.
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
	cli.DashboardServer = serveDashboard
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
