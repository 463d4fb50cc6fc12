module github.com/kml-lang/kml

go 1.26
