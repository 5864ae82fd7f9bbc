package lua

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// ProtoCache is a bounded LRU of compiled chunks keyed by the SHA-256 of
// chunk name and source. Compiled prototypes are immutable, so one cache is
// shared by concurrent VMs: the second Run of the same source skips parsing
// and compilation. Safe for concurrent use.
type ProtoCache struct {
	mu      sync.Mutex
	max     int
	ll      *list.List // front = most recently used
	entries map[[32]byte]*list.Element

	hits, misses atomic.Uint64
}

type cacheEntry struct {
	key   [32]byte
	proto *glua.FunctionProto
}

// CacheStats counts cache lookups.
type CacheStats struct {
	Hits, Misses uint64
	Entries      int
}

// DefaultProtoCacheSize is the capacity of [DefaultProtoCache].
const DefaultProtoCacheSize = 512

// DefaultProtoCache is the process-wide cache VMs use unless
// Options.Cache says otherwise.
var DefaultProtoCache = NewProtoCache(DefaultProtoCacheSize)

// NewProtoCache returns a cache holding at most max compiled chunks
// (max < 1 means 1).
func NewProtoCache(max int) *ProtoCache {
	if max < 1 {
		max = 1
	}
	return &ProtoCache{max: max, ll: list.New(), entries: map[[32]byte]*list.Element{}}
}

// Stats returns hit/miss counters and the current size.
func (c *ProtoCache) Stats() CacheStats {
	c.mu.Lock()
	n := c.ll.Len()
	c.mu.Unlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: n}
}

func cacheKey(chunk string, src []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(chunk))
	h.Write([]byte{0})
	h.Write(src)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// compile returns the cached prototype for (chunk, src) or compiles and
// caches it. Compile errors are not cached.
func (c *ProtoCache) compile(chunk string, src []byte) (*glua.FunctionProto, error) {
	key := cacheKey(chunk, src)
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.ll.MoveToFront(el)
		p := el.Value.(*cacheEntry).proto
		c.mu.Unlock()
		c.hits.Add(1)
		return p, nil
	}
	c.mu.Unlock()
	c.misses.Add(1)
	p, err := compileProto(chunk, src)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok { // compiled concurrently
		c.ll.MoveToFront(el)
		return el.Value.(*cacheEntry).proto, nil
	}
	c.entries[key] = c.ll.PushFront(&cacheEntry{key: key, proto: p})
	for c.ll.Len() > c.max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.entries, old.Value.(*cacheEntry).key)
	}
	return p, nil
}

// compileProto parses and compiles src, with every `..` measured before it
// is built (concat.go); errors are *ScriptError with the chunk and line of
// the syntax error.
func compileProto(chunk string, src []byte) (*glua.FunctionProto, error) {
	stmts, err := parse.Parse(bytes.NewReader(src), chunk)
	if err != nil {
		return nil, syntaxError(chunk, err)
	}
	if err := checkDepth(stmts); err != nil {
		return nil, syntaxError(chunk, err)
	}
	proto, err := glua.Compile(rewriteChunk(stmts), chunk)
	if err != nil {
		return nil, syntaxError(chunk, err)
	}
	return proto, nil
}

func syntaxError(chunk string, err error) *ScriptError {
	se := &ScriptError{Chunk: chunk, LuaChunk: chunk, Kind: KindSyntax, Cause: err}
	var pe *parse.Error
	var ce *glua.CompileError
	switch {
	case errors.As(err, &pe):
		if pe.Pos.Line == parse.EOF {
			se.Message = pe.Message + " at end of input"
		} else {
			se.Line = pe.Pos.Line
			se.Message = fmt.Sprintf("%s near '%s' (column %d)", pe.Message, pe.Token, pe.Pos.Column)
		}
	case errors.As(err, &ce):
		se.Line = ce.Line
		se.Message = "compile error: " + ce.Message
	default:
		se.Message = "syntax error: " + strings.TrimSpace(err.Error())
	}
	se.LuaLine = se.Line
	return se
}
