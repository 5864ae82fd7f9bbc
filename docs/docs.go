// Package docs embeds the user documentation (docs/*.md) so front ends can
// serve it as it ships with the binary — the MCP server's resources (the
// Lua API, playbooks, actions, skills).
package docs

import (
	"embed"
	"io/fs"
)

//go:embed *.md
var files embed.FS

// Files is every page, named by file name ("lua-api.md").
func Files() fs.FS { return files }
