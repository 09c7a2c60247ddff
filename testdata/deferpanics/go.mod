module example.com/deferpanics

go 1.24
