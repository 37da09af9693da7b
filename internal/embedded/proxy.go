package embedded

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxy owns a node's public port (client or cluster) and forwards each
// connection to the node's current internal listener. The public port
// outlives Kill/Restart; the node behind it may move.
type proxy struct {
	addr    string                // public host:port
	own     *gate                 // the node behind this port
	backend func() string         // internal address; "" while the node is down
	origin  func(id string) *gate // cluster ports: gate of the connecting server

	mu    sync.Mutex
	ln    net.Listener // nil while stopped
	pipes map[*pipe]struct{}
	wg    sync.WaitGroup
}

// pipe is one proxied connection.
type pipe struct {
	front, back net.Conn
	done        chan struct{}
	once        sync.Once
	origin      atomic.Pointer[gate] // set once a route's CONNECT names its sender
}

func (pp *pipe) close() {
	pp.once.Do(func() {
		close(pp.done)
		pp.front.Close()
		pp.back.Close()
	})
}

func newProxy(ln net.Listener, own *gate, backend func() string, origin func(string) *gate) *proxy {
	p := &proxy{
		addr:    ln.Addr().String(),
		own:     own,
		backend: backend,
		origin:  origin,
		pipes:   make(map[*pipe]struct{}),
	}
	p.serve(ln)
	return p
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() { p.acceptLoop(ln) })
}

// start listens on the public port again after stop (Restart).
func (p *proxy) start() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("listen on %s again: %w", p.addr, err)
	}
	p.serve(ln)
	return nil
}

// stop closes the public port and every proxied connection, so the port
// refuses connections like a dead process would.
func (p *proxy) stop() {
	p.mu.Lock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	pipes := p.takePipesLocked(func(*pipe) bool { return true })
	p.mu.Unlock()
	for _, pp := range pipes {
		pp.close()
	}
	p.wg.Wait()
}

// dropOrigin closes connections opened by the node behind g; used when
// that node is killed while paused and its pipes are stuck at the gate.
func (p *proxy) dropOrigin(g *gate) {
	p.mu.Lock()
	pipes := p.takePipesLocked(func(pp *pipe) bool { return pp.origin.Load() == g })
	p.mu.Unlock()
	for _, pp := range pipes {
		pp.close()
	}
}

func (p *proxy) takePipesLocked(match func(*pipe) bool) []*pipe {
	var out []*pipe
	for pp := range p.pipes {
		if match(pp) {
			out = append(out, pp)
			delete(p.pipes, pp)
		}
	}
	return out
}

func (p *proxy) acceptLoop(ln net.Listener) {
	for {
		front, err := ln.Accept()
		if err != nil {
			return
		}
		p.wg.Go(func() { p.connect(front) })
	}
}

func (p *proxy) connect(front net.Conn) {
	addr := p.backend()
	if addr == "" { // nothing behind the port: drop, the nearest thing to refusing
		front.Close()
		return
	}
	back, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		front.Close()
		return
	}
	pp := &pipe{front: front, back: back, done: make(chan struct{})}
	p.mu.Lock()
	if p.ln == nil { // stopped meanwhile
		p.mu.Unlock()
		pp.close()
		return
	}
	p.pipes[pp] = struct{}{}
	p.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { p.pump(pp, front, back, p.origin != nil) })
	wg.Go(func() { p.pump(pp, back, front, false) })
	wg.Wait()
	p.mu.Lock()
	delete(p.pipes, pp)
	p.mu.Unlock()
}

// pump copies src to dst, holding each read and write while a gate of the
// pipe is paused: the sender then sees TCP back-pressure and the receiver
// silence, which is what a stopped process looks like from outside.
func (p *proxy) pump(pp *pipe, src, dst net.Conn, sniff bool) {
	defer pp.close()
	var r io.Reader = src
	if sniff {
		br := bufio.NewReaderSize(src, 4096)
		if !p.wait(pp) {
			return
		}
		line, err := br.ReadSlice('\n')
		if g := p.origin(routeSender(line)); g != nil {
			pp.origin.Store(g)
		}
		if len(line) > 0 && (!p.wait(pp) || !write(dst, line)) {
			return
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
		r = br
	}
	buf := make([]byte, 32<<10)
	for {
		if !p.wait(pp) {
			return
		}
		n, err := r.Read(buf)
		if n > 0 && (!p.wait(pp) || !write(dst, buf[:n])) {
			return
		}
		if err != nil {
			return
		}
	}
}

// wait blocks while the node behind the port or the connecting node is
// paused; false means the pipe was closed.
func (p *proxy) wait(pp *pipe) bool {
	for {
		held := false
		for _, g := range []*gate{p.own, pp.origin.Load()} {
			if g != nil && g.paused() {
				held = true
				if !g.wait(pp.done) {
					return false
				}
			}
		}
		if !held {
			return true
		}
	}
}

func write(w io.Writer, b []byte) bool {
	_, err := w.Write(b)
	return err == nil
}

// routeSender extracts the server ID from the first line a soliciting route
// sends ("CONNECT {...,"name":"<server id>",...}"). Route connections reach
// the cluster port of the accepting node only, so this is how a pipe learns
// which other node is on its far side.
func routeSender(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte("CONNECT "))
	if !ok {
		return ""
	}
	var c struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(bytes.TrimSpace(rest), &c) != nil {
		return ""
	}
	return c.Name
}
