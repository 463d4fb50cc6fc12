package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"time"
)

// ProtocolVersion is the messaging protocol the kernel speaks.
const ProtocolVersion = "5.3"

// delimiter separates the routing identities from the message frames.
var delimiter = []byte("<IDS|MSG>")

// Header is a message's header (and, in a reply, its parent header).
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one protocol message. Content is kept raw on receipt and
// marshalled on sending.
type Message struct {
	Identities [][]byte
	Header     Header
	Parent     Header
	Metadata   map[string]any
	Content    json.RawMessage
}

// signer signs and checks messages with the connection file's key; an
// empty key signs with "" and checks nothing, as the protocol allows.
type signer struct {
	key []byte
}

func (s signer) mac() hash.Hash { return hmac.New(sha256.New, s.key) }

// sign is the hex HMAC-SHA256 of the four signed frames.
func (s signer) sign(frames [][]byte) []byte {
	if len(s.key) == 0 {
		return nil
	}
	m := s.mac()
	for _, f := range frames {
		m.Write(f)
	}
	return []byte(hex.EncodeToString(m.Sum(nil)))
}

// decode parses the frames of a received message and checks its signature.
func (s signer) decode(frames [][]byte) (*Message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], delimiter) {
		i++
	}
	if i == len(frames) || len(frames) < i+6 {
		return nil, errors.New("malformed message: no delimiter or too few frames")
	}
	sig, signed := frames[i+1], frames[i+2:i+6]
	if len(s.key) > 0 && !hmac.Equal(sig, s.sign(signed)) {
		return nil, errors.New("message with a bad signature dropped")
	}
	m := &Message{Identities: frames[:i], Content: append(json.RawMessage(nil), signed[3]...)}
	if err := json.Unmarshal(signed[0], &m.Header); err != nil {
		return nil, fmt.Errorf("bad header: %v", err)
	}
	json.Unmarshal(signed[1], &m.Parent) // an empty parent ({}) stays zero
	json.Unmarshal(signed[2], &m.Metadata)
	return m, nil
}

// encode makes the frames of a message of type msgType with content,
// in reply to parent (which may be nil), routed to identities.
func (s signer) encode(identities [][]byte, session, msgType string, parent *Header, content any) ([][]byte, error) {
	h := Header{MsgID: newID(), Session: session, Username: "kernel",
		Date: time.Now().UTC().Format(time.RFC3339Nano), MsgType: msgType, Version: ProtocolVersion}
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	pb := []byte("{}")
	if parent != nil && parent.MsgID != "" {
		if pb, err = json.Marshal(parent); err != nil {
			return nil, err
		}
	}
	cb, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	signed := [][]byte{hb, pb, []byte("{}"), cb}
	frames := append([][]byte{}, identities...)
	frames = append(frames, delimiter, s.sign(signed))
	return append(frames, signed...), nil
}

// newID is a random UUID-shaped id.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
