" .kml files are KML programs (not Google Earth's XML).
autocmd BufRead,BufNewFile *.kml setfiletype kml
