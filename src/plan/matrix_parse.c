/* placeholder: owned by the tools helper */
