package dev.bloomguard.spring.data.r2dbc;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

@Table("data_r2dbc_items")
record Item(@Id Long id, String label) {
}
