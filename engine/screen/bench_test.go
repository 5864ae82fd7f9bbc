package screen

import (
	"image"
	"testing"
)

func BenchmarkParseHierarchy300(b *testing.B) {
	data := readFixture(b, "webview.xml")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var root *Node
	for b.Loop() {
		var err error
		if root, err = ParseHierarchy(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(countNodes(root)-1), "nodes")
}

func BenchmarkElements(b *testing.B) {
	root := parseFixture(b, "webview.xml")
	o := ElementOptions{Width: 1080, Height: 2400, ScaleX: 1080.0 / 768, ScaleY: 2400.0 / 1707}
	b.ReportAllocs()
	var els []UIElement
	for b.Loop() {
		els = Elements(root, o)
	}
	b.ReportMetric(float64(len(els)), "elements")
}

func BenchmarkFindAll300(b *testing.B) {
	root := parseFixture(b, "webview.xml")
	for _, bc := range []struct {
		name string
		sel  Selector
	}{
		{"text", Selector{Text: "Item 59.2"}},
		{"textContains", Selector{TextContains: "item 4"}},
		{"regex+childOf", Selector{TextRegex: `Item 4\d\.1`, ChildOf: &Selector{Class: "WebView"}}},
		{"below+clickable", Selector{Clickable: Bool(true), Below: &Selector{Text: "Item 30.0"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := bc.sel.MustCompile()
			b.ReportAllocs()
			var got []*Node
			for b.Loop() {
				got = m.FindAll(root)
			}
			b.ReportMetric(float64(len(got)), "matches")
		})
	}
}

// BenchmarkResize scales a 1080×2400 RGBA screenshot (what both decoders
// return) to the OpenAI size.
func BenchmarkResize(b *testing.B) {
	src := (*image.RGBA)(testScreen(1080, 2400, 0))
	sw, sh := ScaledSize(1080, 2400, StyleOpenAI)
	b.SetBytes(int64(len(src.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		Resize(src, sw, sh)
	}
	b.ReportMetric(float64(sw*sh)/1e6, "Mpx-out")
}

func BenchmarkDHash(b *testing.B) {
	src := testScreen(1080, 2400, 0)
	b.SetBytes(int64(len(src.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		DHash(src)
	}
}

func scaledFixture(b testing.TB) (*image.RGBA, []UIElement) {
	sw, sh := ScaledSize(1080, 2400, StyleOpenAI)
	img := Resize(testScreen(1080, 2400, 0), sw, sh)
	root := parseFixture(b, "webview.xml")
	els := Elements(root, ElementOptions{Width: 1080, Height: 2400, ScaleX: 1080 / float64(sw), ScaleY: 2400 / float64(sh)})
	return img, els
}

func BenchmarkSetOfMark(b *testing.B) {
	img, els := scaledFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		SetOfMark(img, els, true)
	}
	b.ReportMetric(float64(len(els)), "marks")
}

func BenchmarkEncodePNG(b *testing.B) {
	img, els := scaledFixture(b)
	som := SetOfMark(img, els, true)
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		var err error
		if out, err = EncodePNG(som); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out))/1024, "KiB")
}
