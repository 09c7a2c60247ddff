module example.com/unreached

go 1.26
