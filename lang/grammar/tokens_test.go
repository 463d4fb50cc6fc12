package grammar

import (
	"fmt"
	"strings"
	"testing"
)

func TestTokensKeepComments(t *testing.T) {
	src := "\ufeff# head\nlet θ = \"a#b\" # tail\r\nmodel m { x ~ normal(0, 1) } #end"
	toks, err := Tokens("x.kml", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tok := range toks {
		if tok.Kind == Comment || tok.Kind == String || tok.Kind == Ident && tok.Text == "θ" {
			got = append(got, fmt.Sprintf("%d:%d %s %d", tok.Pos.Line, tok.Pos.Col, tok.Text, tok.Offset))
		}
	}
	want := "1:1 # head 3|2:5 θ 14|2:9 \"a#b\" 19|2:15 # tail 25|3:30 #end 62"
	if s := strings.Join(got, "|"); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	if last := toks[len(toks)-1]; last.Kind != EOF {
		t.Errorf("last token %v", last)
	}
	if _, err := Tokens("x.kml", "let a = \"open # not a comment\n"); err == nil {
		t.Error("an unterminated string is an error")
	}
}
