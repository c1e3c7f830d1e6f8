-- Its rows were copied into `transactions` by the previous migration.
DROP TABLE IF EXISTS raw_transactions;
