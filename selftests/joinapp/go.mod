module gotrace/joinapp

go 1.22
