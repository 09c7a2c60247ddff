module example.com/semantics

go 1.23
