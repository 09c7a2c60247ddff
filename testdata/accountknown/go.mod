module example.com/accountknown

go 1.24
