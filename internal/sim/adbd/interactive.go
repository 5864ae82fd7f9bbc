package adbd

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
)

// interactivePrompt mimics an unrooted device shell.
const interactivePrompt = "vphone:/ $ "

// interactiveShell serves a shell opened without a command (`adb shell`
// with no arguments): a prompt, then one command per input line until
// "exit" or end of input. It is line based; there is no terminal emulation.
func interactiveShell(ctx context.Context, h Handler, stdin io.Reader, stdout, stderr io.Writer) int {
	lines := bufio.NewReader(stdin)
	status := 0
	for ctx.Err() == nil {
		if _, err := io.WriteString(stdout, interactivePrompt); err != nil {
			return status
		}
		line, err := lines.ReadString('\n')
		line = strings.TrimSpace(line)
		if fields := strings.Fields(line); len(fields) > 0 && fields[0] == "exit" {
			if len(fields) > 1 {
				if n, convErr := strconv.Atoi(fields[1]); convErr == nil {
					return n & 0xff
				}
			}
			return status
		}
		if line != "" {
			status = h.Shell(ctx, line, strings.NewReader(""), stdout, stderr)
		}
		if err != nil {
			return status
		}
	}
	return status
}
