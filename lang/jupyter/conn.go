package jupyter

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/go-zeromq/zmq4"
)

// Connection is the connection file Jupyter writes for a kernel: where to
// listen, and the key messages are signed with.
type Connection struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	HBPort          int    `json:"hb_port"`
	SignatureScheme string `json:"signature_scheme"`
	Key             string `json:"key"`
}

// ReadConnection reads and checks a connection file.
func ReadConnection(path string) (Connection, error) {
	var c Connection
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("%s: %v", path, err)
	}
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	if c.Transport != "tcp" && c.Transport != "ipc" {
		return c, fmt.Errorf("%s: transport %q: only tcp and ipc are supported", path, c.Transport)
	}
	if c.SignatureScheme != "" && c.SignatureScheme != "hmac-sha256" {
		return c, fmt.Errorf("%s: signature_scheme %q: only hmac-sha256 is supported", path, c.SignatureScheme)
	}
	return c, nil
}

// endpoint is the ZeroMQ address of a port: tcp://IP:PORT, or for ipc the
// file IP-PORT as Jupyter names it.
func (c Connection) endpoint(port int) string {
	if c.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", c.IP, port)
	}
	return fmt.Sprintf("tcp://%s:%d", c.IP, port)
}

// channel is a socket whose sends are serialised: the executing cell, the
// control goroutine and the progress display all publish on iopub.
type channel struct {
	mu   sync.Mutex
	sock zmq4.Socket
}

func (c *channel) send(frames [][]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sock.SendMulti(zmq4.NewMsgFrom(frames...))
}
