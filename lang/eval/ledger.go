package eval

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The ledger counts the bytes held by the values alive in an interpreter,
// so that the memory budget bounds all of them together and not only each
// result: four vectors of 80 MB under a budget of 100 MB are refused at the
// second one, not left to take 320 MB.
//
// A value is alive while something the program can still reach refers to
// it, which Go's collector, not the interpreter, decides; the ledger counts
// the references the evaluator itself makes, which are the ones a program
// controls:
//
//   - bindings: each value a `let` binds at the top level of a file, an
//     import or a REPL input, or Interpreter.Define binds, for as long as
//     the binding lasts (a REPL input or Define that binds the name again
//     releases the old value);
//   - in flight: the arguments of the calls being evaluated (they are the
//     parameters of a fn while its body runs) and the left operand of an
//     operator while its right one is evaluated: the temporary
//     linspace(0, 1, n) in `linspace(0, 1, n) * 2`. Only on the
//     evaluation's own threads: a model's density (Thread.Fork), evaluated
//     thousands of times on several chains, holds nothing in flight, and
//     its temporaries are mostly on the tape, which is not counted.
//
// Memory is counted by block: a vector's or a matrix's numbers, a
// posterior's draws (MemoryHolder), each once however many values share it
// (`let b = a`, a record holding a vector bound elsewhere). Records and
// lists count the blocks of their elements. Numbers, strings, kernels and
// distributions count nothing, nor do the tape of a model being fitted and
// a builtin's scratch space while it runs.
//
// Every check before an allocation (CheckVector, CheckDense, the
// operators) asks that the live blocks plus the result fit in the budget,
// and every builtin's result is checked when it returns, so a builtin that
// checks nothing itself still cannot let the live values grow past the
// budget by more than that one result.

// MemoryHolder is a value that holds blocks of memory other than the
// vectors and matrices the ledger sees by itself (a posterior's draws). It
// calls add for each block: key is the block's address (a pointer, so that
// a block two values share is counted once), bytes its size.
type MemoryHolder interface {
	Value
	HeldMemory(add func(key any, bytes int64))
}

// FloatsBlock adds xs as a block to add, for MemoryHolder implementations.
func FloatsBlock(add func(key any, bytes int64), xs []float64) {
	if cap(xs) > 0 {
		add(&xs[:1][0], 8*int64(cap(xs)))
	}
}

// footprint calls add for each block of memory v holds (numbers, strings
// and kernels hold none worth counting, and values on a tape are not
// counted). A record or a list is a block of 0 bytes itself, so that one
// bound as a whole is known as alive.
func footprint(v Value, add func(key any, bytes int64)) {
	switch v := v.(type) {
	case *Vec:
		FloatsBlock(add, v.Data)
	case *Mat:
		if v.M != nil && !v.M.IsEmpty() {
			FloatsBlock(add, v.M.RawMatrix().Data)
		}
	case *Record:
		add(v, 0)
		for _, k := range v.keys {
			footprint(v.vals[k], add)
		}
	case *List:
		add(v, 0)
		for _, e := range v.Elems {
			footprint(e, add)
		}
	case MemoryHolder:
		v.HeldMemory(add)
	}
}

// counted reports whether v may hold memory the ledger counts: the
// evaluator skips the ledger for every other value (numbers above all).
func counted(v Value) bool {
	switch v.(type) {
	case *Vec, *Mat, *Record, *List, MemoryHolder:
		return true
	}
	return false
}

// binding names one charged binding: a name in an Env.
type binding struct {
	env  *Env
	name string
}

// block is one counted block of memory and who refers to it.
type block struct {
	bytes int64
	refs  int
	owner string // the first binding that held it, for messages ("" in flight)
}

// ledger is an interpreter's count of live blocks. Its methods are safe
// for concurrent use (a parallel map's workers, a sampler's chains).
type ledger struct {
	mu       sync.Mutex
	blocks   map[any]*block
	bindings map[binding][]any // the blocks each charged binding refers to
	live     atomic.Int64      // Σ bytes of blocks with refs > 0
}

func newLedger() *ledger {
	return &ledger{blocks: map[any]*block{}, bindings: map[binding][]any{}}
}

// Live is the bytes of the blocks alive now.
func (l *ledger) Live() int64 { return l.live.Load() }

// acquire adds a reference to each block of v and returns their keys;
// owner names the binding ("" for a value in flight).
func (l *ledger) acquire(v Value, owner string) []any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acquireLocked(v, owner)
}

func (l *ledger) acquireLocked(v Value, owner string) []any {
	var keys []any
	footprint(v, func(key any, bytes int64) {
		b := l.blocks[key]
		if b == nil {
			b = &block{bytes: bytes}
			l.blocks[key] = b
		}
		if b.refs == 0 {
			l.live.Add(b.bytes)
		}
		if b.owner == "" {
			b.owner = owner
		}
		b.refs++
		keys = append(keys, key)
	})
	return keys
}

// release drops the references acquire returned.
func (l *ledger) release(keys []any) {
	if len(keys) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(keys)
}

func (l *ledger) releaseLocked(keys []any) {
	for _, k := range keys {
		b := l.blocks[k]
		if b == nil {
			continue
		}
		if b.refs--; b.refs <= 0 {
			l.live.Add(-b.bytes)
			delete(l.blocks, k)
		}
	}
}

// extra is how many bytes v holds beyond the blocks already alive.
func (l *ledger) extra(v Value) int64 {
	var n int64
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[any]bool{}
	footprint(v, func(key any, bytes int64) {
		if b := l.blocks[key]; (b == nil || b.refs == 0) && !seen[key] {
			seen[key] = true
			n += bytes
		}
	})
	return n
}

// bind charges v to name in env, releasing what name held there before.
func (l *ledger) bind(env *Env, name string, v Value) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var keys []any
	if counted(v) {
		keys = l.acquireLocked(v, name)
	}
	b := binding{env, name}
	old := l.bindings[b]
	if keys == nil {
		delete(l.bindings, b)
	} else {
		l.bindings[b] = keys
	}
	l.releaseLocked(old)
}

// move hands name's charge from env to into (a REPL input's names joining
// the session), releasing what name held in into before.
func (l *ledger) move(from, into *Env, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	src, dst := binding{from, name}, binding{into, name}
	keys, old := l.bindings[src], l.bindings[dst]
	delete(l.bindings, src)
	if keys == nil {
		delete(l.bindings, dst)
	} else {
		l.bindings[dst] = keys
	}
	l.releaseLocked(old)
}

// holders lists the bindings holding the most bytes, largest first, and
// what values in flight hold, for messages: "a 76 MB, b 76 MB; 76 MB in
// use by the expression".
func (l *ledger) holders(most int) string {
	l.mu.Lock()
	per := map[string]int64{}
	var anon int64
	for _, b := range l.blocks {
		switch {
		case b.refs <= 0:
		case b.owner == "":
			anon += b.bytes
		default:
			per[b.owner] += b.bytes
		}
	}
	l.mu.Unlock()
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(per[b], per[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for i, n := range names {
		if i == most {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", n, FormatBytes(float64(per[n]))))
	}
	s := strings.Join(parts, ", ")
	if anon > 0 {
		if s != "" {
			s += "; "
		}
		s += FormatBytes(float64(anon)) + " in use by the expression"
	}
	return s
}

// flight is a value held in flight by the evaluator (an argument, a left
// operand); the zero flight holds nothing.
type flight []any

// hold counts v as in flight until the returned flight is landed; values
// that hold no counted memory cost nothing.
func (th *Thread) hold(v Value) flight {
	if th.forked || !counted(v) {
		return nil
	}
	return th.in.ledger.acquire(v, "")
}

// land ends a hold.
func (th *Thread) land(f flight) {
	if f != nil {
		th.in.ledger.release(f)
	}
}
