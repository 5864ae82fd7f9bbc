// Package memory implements the memory_search and memory_get executors over
// a workspace's memory files: MEMORY.md and memory/**/*.md (the daily
// memory files of docs/formats.md#daily-memory and anything the user files below memory/).
// Nothing else in the workspace is read, and symlinks that lead out of that
// scope are ignored (search) or refused (get).
//
// Search is a plain lexical scan, deterministic and dependency-free: every
// file is cut into windows of 6 lines with a stride of 3 (the last window
// ends at the last line), and each window scores
//
//	0.5 × [the whole folded query is a substring of the folded window]
//	+ 0.5 × (query tokens found in the window / query tokens)
//
// clamped to [0, 1], where folding (Fold) lowercases, removes accents and
// drops hyphens, and tokens are the unique folded alphanumeric runs of the
// query longer than one character, found by substring. Windows
// under minScore (and windows scoring 0) are dropped, each file keeps its best 3, and results are
// ordered by score (descending), path, start line. Scores are rounded to 3
// decimals in the output.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/action"
)

// Config is the memoryTools configuration. A zero Config means all
// defaults; otherwise zero counts take their defaults while MinScore is
// taken as given, since 0 ("every window that matches at all") is a
// meaningful threshold that config.json may set.
type Config struct {
	// MaxResults is the default result count (default 6; requests are
	// clamped to 1..30).
	MaxResults int
	// MinScore is the default score threshold (default 0.2 when the whole
	// Config is zero, or when negative or NaN).
	MinScore float64
	// MaxSnippetChars caps each snippet (default 1200).
	MaxSnippetChars int
}

const (
	windowLines     = 6
	windowStride    = 3
	bestPerFile     = 3
	maxResultsLimit = 30
	defaultGetLines = 120
	maxGetLines     = 2000
)

// ErrOutOfScope is wrapped by memory_get refusals of paths outside
// MEMORY.md and memory/**/*.md.
var ErrOutOfScope = errors.New("only MEMORY.md and memory/*.md can be read")

// Executor answers memory actions for one workspace; it keeps no state and
// is safe for concurrent use.
type Executor struct {
	workspace string
	cfg       Config
}

var _ engine.Executor = (*Executor)(nil)

// New returns an executor for workspaceDir.
func New(workspaceDir string, cfg Config) *Executor {
	if cfg == (Config{}) || cfg.MinScore < 0 || math.IsNaN(cfg.MinScore) {
		cfg.MinScore = 0.2
	}
	if cfg.MaxResults <= 0 {
		cfg.MaxResults = 6
	}
	if cfg.MaxSnippetChars <= 0 {
		cfg.MaxSnippetChars = 1200
	}
	return &Executor{workspace: workspaceDir, cfg: cfg}
}

// Hit is one search result.
type Hit struct {
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet"`
	Citation  string  `json:"citation"`
}

// SearchResult is the memory_search JSON.
type SearchResult struct {
	Query        string  `json:"query"`
	MinScore     float64 `json:"minScore"`
	ScannedFiles int     `json:"scannedFiles"`
	Results      []Hit   `json:"results"`
}

// Search scores every window of the memory files against query.
// maxResults <= 0 means Config.MaxResults (then clamped to 1..30); minScore
// < 0 or NaN means Config.MinScore (then clamped to [0, 1]). An empty query
// matches nothing.
func (e *Executor) Search(query string, maxResults int, minScore float64) (SearchResult, error) {
	if maxResults <= 0 {
		maxResults = e.cfg.MaxResults
	}
	maxResults = min(max(maxResults, 1), maxResultsLimit)
	if minScore < 0 || math.IsNaN(minScore) {
		minScore = e.cfg.MinScore
	}
	minScore = min(max(minScore, 0), 1)
	res := SearchResult{Query: query, MinScore: minScore, Results: []Hit{}}

	files, err := e.files()
	if err != nil {
		return res, err
	}
	phrase := Fold(strings.TrimSpace(query))
	tokens := Tokens(query)
	var hits []Hit
	root := e.scope().root
	for _, f := range files {
		data, err := readInRoot(root, f.abs)
		if err != nil {
			return res, fmt.Errorf("memory_search: %w", err)
		}
		res.ScannedFiles++
		if phrase == "" {
			continue
		}
		var fileHits []Hit
		lines := splitLines(string(data))
		// Fold each line once; windows overlap (stride < size).
		folded := make([]string, len(lines))
		for i, l := range lines {
			folded[i] = Fold(l)
		}
		for start := 0; start < len(lines); start += windowStride {
			end := min(start+windowLines, len(lines))
			text := strings.Join(lines[start:end], "\n")
			score := Score(strings.Join(folded[start:end], "\n"), phrase, tokens)
			if score >= minScore && score > 0 {
				fileHits = append(fileHits, Hit{
					Path: f.rel, StartLine: start + 1, EndLine: end, Score: score,
					Snippet:  capChars(text, e.cfg.MaxSnippetChars),
					Citation: fmt.Sprintf("%s#L%d-L%d", f.rel, start+1, end),
				})
			}
			if end == len(lines) {
				break
			}
		}
		slices.SortStableFunc(fileHits, func(a, b Hit) int { return cmpHit(a, b) })
		hits = append(hits, fileHits[:min(len(fileHits), bestPerFile)]...)
	}
	slices.SortStableFunc(hits, cmpHit)
	hits = hits[:min(len(hits), maxResults)]
	for i := range hits {
		hits[i].Score = math.Round(hits[i].Score*1000) / 1000
	}
	res.Results = append(res.Results, hits...)
	return res, nil
}

func cmpHit(a, b Hit) int {
	switch {
	case a.Score != b.Score:
		if a.Score > b.Score {
			return -1
		}
		return 1
	case a.Path != b.Path:
		return strings.Compare(a.Path, b.Path)
	}
	return a.StartLine - b.StartLine
}

// Tokens returns the unique folded alphanumeric runs of query longer than
// one character, in order of first appearance.
func Tokens(query string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(Fold(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(f) > 1 && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Score scores a folded window against the folded phrase and its tokens (see the package documentation).
func Score(lowerText, phrase string, tokens []string) float64 {
	score := 0.0
	if phrase != "" && strings.Contains(lowerText, phrase) {
		score += 0.5
	}
	if len(tokens) > 0 {
		found := 0
		for _, t := range tokens {
			if strings.Contains(lowerText, t) {
				found++
			}
		}
		score += 0.5 * float64(found) / float64(len(tokens))
	}
	return min(max(score, 0), 1)
}

func splitLines(text string) []string {
	text = strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// capChars cuts s to at most n characters, ending in "…" when cut.
func capChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

type memFile struct {
	abs string // resolved path
	rel string // workspace-relative, forward slashes
}

// files lists MEMORY.md and memory/**/*.md (walk order), skipping entries that
// resolve outside the memory scope.
func (e *Executor) files() ([]memFile, error) {
	sc := e.scope()
	var out []memFile
	if real, ok := sc.contains("MEMORY.md"); ok {
		out = append(out, memFile{real, "MEMORY.md"})
	}
	dir := filepath.Join(e.workspace, "memory")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		rel, err := filepath.Rel(e.workspace, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if real, ok := sc.contains(rel); ok {
			out = append(out, memFile{real, rel})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("memory_search: %w", err)
	}
	return out, nil
}

// memScope is the memory scope with the workspace and memory/ resolved
// through symlinks ("" when they do not exist), computed once per request.
type memScope struct {
	root   string
	memDir string
}

func (e *Executor) scope() memScope {
	root, err := filepath.EvalSymlinks(e.workspace)
	if err != nil {
		return memScope{}
	}
	memDir, _ := filepath.EvalSymlinks(filepath.Join(root, "memory"))
	return memScope{root: root, memDir: memDir}
}

// contains resolves a clean workspace-relative path and reports whether it
// is an existing regular file that is MEMORY.md or lies below memory/ —
// after resolving symlinks of the workspace, memory/ and the file.
func (sc memScope) contains(rel string) (string, bool) {
	if sc.root == "" {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(sc.root, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() || !strings.HasSuffix(real, ".md") {
		return "", false
	}
	if real == filepath.Join(sc.root, "MEMORY.md") {
		return real, true
	}
	if sc.memDir == "" {
		return "", false
	}
	r, err := filepath.Rel(sc.memDir, real)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return real, true
}

// GetResult is a window of a memory file (the memory_get JSON).
type GetResult struct {
	Path       string `json:"path"`
	From       int    `json:"from"`
	To         int    `json:"to"`
	TotalLines int    `json:"totalLines"`
	Text       string `json:"text"`
}

// Get returns lines from..from+lines-1 of MEMORY.md or a memory/**/*.md
// file (from < 1 means 1; lines <= 0 means 120, at most 2000). Paths are
// workspace-relative; anything else, "..", absolute paths and symlinks
// leading out of scope are refused with an error wrapping ErrOutOfScope.
func (e *Executor) Get(p string, from, lines int) (string, error) {
	r, err := e.GetWindow(p, from, lines)
	return r.Text, err
}

// GetWindow is Get with the line bounds of the answer.
func (e *Executor) GetWindow(p string, from, lines int) (GetResult, error) {
	rel, err := checkGetPath(p)
	if err != nil {
		return GetResult{}, err
	}
	if from < 1 {
		from = 1
	}
	if lines <= 0 {
		lines = defaultGetLines
	}
	lines = min(lines, maxGetLines)
	if _, err := os.Lstat(filepath.Join(e.workspace, filepath.FromSlash(rel))); errors.Is(err, fs.ErrNotExist) {
		return GetResult{}, fmt.Errorf("%s does not exist", rel)
	}
	real, ok := e.scope().contains(rel)
	if !ok {
		return GetResult{}, fmt.Errorf("%s resolves outside the memory files: %w", rel, ErrOutOfScope)
	}
	data, err := readInRoot(e.scope().root, real)
	if err != nil {
		return GetResult{}, err
	}
	all := splitLines(string(data))
	r := GetResult{Path: rel, From: from, To: from - 1, TotalLines: len(all)}
	if from <= len(all) {
		r.To = min(from+lines-1, len(all))
		r.Text = strings.Join(all[from-1:r.To], "\n")
	}
	return r, nil
}

// maxMemoryFileBytes caps what one memory file read loads.
const maxMemoryFileBytes = 16 << 20

// readInRoot reads real (a path below root, resolved by memScope.contains)
// through an os.Root: a symlink swapped in after the check cannot lead the
// read out of the workspace. FIFOs and devices are refused without
// blocking; files are capped at maxMemoryFileBytes.
func readInRoot(root, real string) ([]byte, error) {
	rel, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is outside the workspace: %w", real, ErrOutOfScope)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", rel, ErrOutOfScope)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxMemoryFileBytes+1))
	if err == nil && len(data) > maxMemoryFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", rel, maxMemoryFileBytes)
	}
	return data, err
}

// checkGetPath accepts "MEMORY.md" and "memory/…/*.md" (relative, no "..").
func checkGetPath(p string) (string, error) {
	s := filepath.ToSlash(strings.TrimSpace(p))
	if s == "" {
		return "", fmt.Errorf("path is empty: %w", ErrOutOfScope)
	}
	if path.IsAbs(s) || filepath.IsAbs(p) {
		return "", fmt.Errorf("absolute path %q: %w", p, ErrOutOfScope)
	}
	if slices.Contains(strings.Split(s, "/"), "..") {
		return "", fmt.Errorf("path %q contains \"..\": %w", p, ErrOutOfScope)
	}
	s = path.Clean(s)
	if s == "MEMORY.md" || (strings.HasPrefix(s, "memory/") && strings.HasSuffix(s, ".md")) {
		return s, nil
	}
	return "", fmt.Errorf("path %q: %w", p, ErrOutOfScope)
}

// Execute answers memory_search (JSON SearchResult) and memory_get (JSON
// GetResult). Refusals and missing files are "memory_get failed: …" text.
func (e *Executor) Execute(ctx context.Context, a action.Action) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	switch a.Type {
	case "memory_search":
		minScore := -1.0
		if a.Has("minScore") {
			minScore = a.Float("minScore")
		}
		r, err := e.Search(a.Str("query"), a.Int("maxResults"), minScore)
		if err != nil {
			return "memory_search failed: " + err.Error(), nil
		}
		return marshal(r)
	case "memory_get":
		r, err := e.GetWindow(a.Str("path"), a.Int("from"), a.Int("lines"))
		if err != nil {
			return "memory_get failed: " + err.Error(), nil
		}
		return marshal(r)
	}
	return "", fmt.Errorf("memory executor: unsupported action %q", a.Type)
}

func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("memory executor: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
