module example.com/stateescape

go 1.24
