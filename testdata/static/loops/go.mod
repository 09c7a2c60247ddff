module example.com/loops

go 1.22
