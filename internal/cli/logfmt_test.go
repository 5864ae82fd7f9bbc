package cli

import (
	"bytes"
	"log/slog"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHumanHandlerFormatAndLevels(t *testing.T) {
	var term, file bytes.Buffer
	app := &App{Logger: slog.New(newHumanHandler(&term, slog.LevelInfo))}
	log := app.runLogger(&file).With("run", "demo").WithGroup("step")
	log.Debug("details", "n", 1)
	log.Info("saved note", "title", "Buy milk", "count", 3, "source", "lua")
	log.Warn("slow")

	ts := `\d\d:\d\d:\d\d\.\d{3}`
	assert.Regexp(t, regexp.MustCompile(`^`+ts+` INFO  saved note run=demo step.title="Buy milk" step.count=3\n`+ts+` WARN  slow run=demo\n$`), term.String())
	assert.Regexp(t, regexp.MustCompile(`^`+ts+` DEBUG details run=demo step.n=1\n`+ts+` INFO  saved note`), file.String())
	assert.NotContains(t, file.String(), "source=lua", "the Lua marker is dropped")
	assert.NotContains(t, term.String()+file.String(), "level=", "no raw slog lines")
}
