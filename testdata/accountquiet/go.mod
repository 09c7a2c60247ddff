module example.com/accountquiet

go 1.24
